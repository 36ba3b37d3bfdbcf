import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createExporter, fileName } from './exports';
import { exportRequest, type ExportAsk, type ExportResult } from '../bridge';
import { fakeBridge } from '../test/fakeBridge';

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

describe('exports', () => {
  const ask: ExportAsk = { what: 'links', links: { onlyHidden: true, family: 'aws' } };

  it('asks where, then has Go write the screen’s request there', async () => {
    const chooseExportPath = vi.fn(() => Promise.resolve('/tmp/out/links.csv'));
    const exportTo = vi.fn(() => Promise.resolve({ path: '/tmp/out/links.csv', rows: 4, bytes: 99 } as ExportResult));
    const e = createExporter(fakeBridge({ chooseExportPath, exportTo }));
    await e.save(ask, 'csv', 'links', 'Export links');
    expect(chooseExportPath).toHaveBeenCalledWith('Export links', 'links.csv');
    expect(exportTo).toHaveBeenCalledWith(ask, 'csv', '/tmp/out/links.csv');
    expect(get(e)).toEqual({ state: 'done', result: { path: '/tmp/out/links.csv', rows: 4, bytes: 99 } });
  });

  it('writes nothing when the dialog is cancelled', async () => {
    const exportTo = vi.fn();
    const e = createExporter(fakeBridge({ chooseExportPath: () => Promise.resolve(''), exportTo }));
    await e.save(ask, 'json', 'links', 't');
    expect(exportTo).not.toHaveBeenCalled();
    expect(get(e)).toEqual({ state: 'idle' });
  });

  it('keeps Go’s refusal (a path inside a session folder) as its code', async () => {
    const refusal = { code: 'export-path-in-session', params: { path: '/s/x.csv', root: '/s' }, detail: '' };
    const e = createExporter(fakeBridge({ chooseExportPath: () => Promise.resolve('/s/x.csv'), exportTo: () => Promise.reject(JSON.stringify(refusal)) }));
    await e.save(ask, 'csv', 'links', 't');
    expect(get(e)).toMatchObject({ state: 'error', error: { code: 'export-path-in-session', params: { root: '/s' } } });
  });

  it('proposes a safe file name', () => {
    expect(fileName('Links / flagged: aws', 'csv')).toBe('Links-flagged-aws.csv');
    expect(fileName('../..', 'html')).toBe('spillscope.html');
    expect(fileName('报告 会话', 'html')).toBe('报告-会话.html');
    expect(fileName('', 'json')).toBe('spillscope.json');
  });

  it('fills every field Go expects, keeping the screen’s own', () => {
    const r = exportRequest({ what: 'links', links: { host: 'a.example' } }, 'csv', '/o/l.csv');
    expect(r).toMatchObject({ what: 'links', format: 'csv', path: '/o/l.csv', links: { host: 'a.example', onlyHidden: false, family: '', class: '' } });
    expect(r.report).toMatchObject({ sessionId: 0, language: 'en' });
  });
});
