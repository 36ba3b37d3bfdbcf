// A classic script, run as the page's head is parsed (after Wails' own
// scripts have put the Go bindings on window.go, before the app's bundle is
// fetched). Go puts the first screen's page of the largest results into the
// HTML, just above this script, as a JSON data island (app/firstscreen.go):
// its answer when Go has read it already, else only the page to ask for,
// which this script then asks Go for, so Go answers while the bundle loads.
// The bridge takes the page once (lib/firstpage.ts); when the first screen
// is another, it is dropped. The island is data: it is parsed, never run.
(function () {
  var island = document.getElementById('spillscope-first-page');
  if (!island) return;
  // Read once, then gone: the page holds no inline script once started
  // (and no copy of a page that goes stale).
  var text = island.textContent || '';
  island.remove();
  var want;
  try {
    want = JSON.parse(text);
  } catch (e) {
    return;
  }
  if (!want || typeof want.offset !== 'number' || typeof want.limit !== 'number') return;
  var first = { offset: want.offset, limit: want.limit, value: null, error: null };
  if (want.value) {
    first.value = want.value;
    first.promise = Promise.resolve(want.value);
  } else {
    var largest = window.go && window.go.app && window.go.app.Sessions && window.go.app.Sessions.Largest;
    if (!largest) return;
    first.promise = largest({ offset: first.offset, limit: first.limit }).then(
      function (v) {
        first.value = v;
        return v;
      },
      function (e) {
        first.error = e;
        throw e;
      },
    );
    // A failure is the bridge's to report (it asks again).
    first.promise.catch(function () {});
  }
  window.__spillscopeFirstPage = first;
})();
