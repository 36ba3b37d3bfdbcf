// A classic script, loaded before the app's bundle: when the bundle fails to
// load or throws before the app has drawn anything, the window says so (as
// text) instead of staying blank.
(function () {
  function show(message) {
    var app = document.getElementById('app');
    if (!app || app.childElementCount > 0) return;
    var box = document.createElement('pre');
    box.setAttribute('data-testid', 'startup-failure');
    box.style.cssText = 'margin:2rem;white-space:pre-wrap;font:14px/1.5 sans-serif;color:#7a1f1f';
    box.textContent = 'Spillscope could not start its window: ' + message + '\n应用窗口未能启动。';
    app.appendChild(box);
  }
  window.addEventListener('error', function (e) {
    show(e.error && e.error.stack ? String(e.error.stack) : String(e.message));
  });
  window.addEventListener('unhandledrejection', function (e) {
    show(String(e.reason && e.reason.stack ? e.reason.stack : e.reason));
  });
})();
