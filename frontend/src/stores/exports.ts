import { writable, type Readable } from 'svelte/store';
import type { Bridge, ExportAsk, ExportResult } from '../bridge';
import { failure, type Failure } from './common';

export type ExportState =
  | { state: 'idle' }
  | { state: 'choosing' }
  | { state: 'writing' }
  | { state: 'done'; result: ExportResult }
  | { state: 'error'; error: Failure };

export interface Exporter extends Readable<ExportState> {
  /**
   * save asks where (the save dialog, titled title, proposing name.format),
   * then has Go write ask there. A cancelled dialog writes nothing.
   */
  save(ask: ExportAsk, format: string, name: string, title: string): Promise<void>;
}

/** fileName is a proposed export file name: the screen's name, a safe stem, the format's extension. */
export function fileName(name: string, format: string): string {
  const stem = name.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^[-.]+|[-.]+$/g, '') || 'spillscope';
  return `${stem}.${format}`;
}

export function createExporter(b: Bridge): Exporter {
  const { subscribe, set } = writable<ExportState>({ state: 'idle' });
  let busy = false;
  return {
    subscribe,
    async save(ask, format, name, title) {
      if (busy) return;
      busy = true;
      try {
        set({ state: 'choosing' });
        const path = await b.chooseExportPath(title, fileName(name, format));
        if (!path) {
          set({ state: 'idle' });
          return;
        }
        set({ state: 'writing' });
        set({ state: 'done', result: await b.exportTo(ask, format, path) });
      } catch (e) {
        console.error('spillscope: export failed:', e);
        set({ state: 'error', error: failure(e) });
      } finally {
        busy = false;
      }
    },
  };
}
