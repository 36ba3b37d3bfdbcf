import { errorText } from '../bridge';

export type { Loadable } from './app';

/** Failure is what a store keeps of a rejected call: the text for the log and whether Go said the method is not wired yet, so screens show a translated message instead. */
export interface Failure {
  message: string;
  notWired: boolean;
}

export function failure(e: unknown): Failure {
  const message = errorText(e);
  return { message, notWired: /not wired yet/.test(message) };
}
