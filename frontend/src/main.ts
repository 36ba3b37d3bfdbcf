// First: the start-up trace's clock, then libraries read navigator.language
// when they load (lib/locale.ts).
import { mark } from './lib/startup';
import './lib/locale';
import { flushSync, mount } from 'svelte';
import App from './App.svelte';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('spillscope: #app element missing');

mark('bundle');
const app = mount(App, { target });
// The first screen's effects (its first page's call) run now, not in the
// first microtask, which WebKit runs only once it has laid the page out.
flushSync();
mark('mounted');
export default app;
