// The typed bridge: the only module that touches the generated Wails
// bindings. Components and stores import from here, so a renamed Go method
// breaks one file and the type check, not every screen.
import * as AppSvc from '../wailsjs/go/app/App';
import type { app } from '../wailsjs/go/models';

export type AppInfo = app.Info;
export type Root = app.Root;
export type Settings = app.Settings;

/** Bridge is what the stores need from Go; tests pass their own. */
export interface Bridge {
  info(): Promise<AppInfo>;
  getSettings(): Promise<Settings>;
  setLanguage(lang: string): Promise<Settings>;
}

export const bridge: Bridge = {
  info: () => AppSvc.Info(),
  getSettings: () => AppSvc.GetSettings(),
  setLanguage: (lang) => AppSvc.SetLanguage(lang),
};

/** errorText turns a rejected binding call into text for the log, never for HTML. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : JSON.stringify(e);
}
