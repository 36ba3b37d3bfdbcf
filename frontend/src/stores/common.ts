import { bridgeError } from '../bridge';
import type { Params } from '../i18n';

export type { Loadable } from './app';

/**
 * Failure is what a store keeps of a rejected call: Go's code and params,
 * which the screen translates (errors.codes), the detail text for the log
 * and the Details box, and whether Go said the method is not wired yet.
 */
export interface Failure {
  code: string;
  params: Params;
  message: string;
  notWired: boolean;
}

export function failure(e: unknown): Failure {
  const b = bridgeError(e);
  return { code: b.code, params: b.params, message: b.detail, notWired: /not wired yet/.test(b.detail) };
}
