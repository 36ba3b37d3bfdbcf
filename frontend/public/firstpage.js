// A classic script, run as the page's head is parsed (after Wails' own
// scripts have put the Go bindings on window.go, before the app's bundle is
// fetched): it asks Go for the first page of the largest results, the first
// screen a new user sees, so Go answers while the bundle loads. The bridge
// takes the answer once (lib/firstpage.ts); when the first screen is
// another, the answer is dropped.
(function () {
  var largest = window.go && window.go.app && window.go.app.Sessions && window.go.app.Sessions.Largest;
  if (!largest) return;
  // The largest results' first page as the app asks for it (PAGE_SIZE).
  var first = { offset: 0, limit: 200, value: null, error: null };
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
  window.__spillscopeFirstPage = first;
})();
