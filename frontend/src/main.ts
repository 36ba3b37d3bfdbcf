// First: libraries read navigator.language when they load (lib/locale.ts).
import './lib/locale';
import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('spillscope: #app element missing');

export default mount(App, { target });
