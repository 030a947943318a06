// Errors of htmx requests become a message that says what to do (htmx swaps nothing on
// a 4xx/5xx answer, which would otherwise look like a button that does nothing).
(function () {
  "use strict";
  var MESSAGES = {
    403: "You may not do this. Ask a supervisor if you think you should.",
    404: "This item no longer exists or is not yours to see. Reload the page.",
    409: "Someone changed this meanwhile. Reload the page to see its current state.",
  };

  function toast(text) {
    var box = document.getElementById("toast");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    clearTimeout(box._timer);
    box._timer = setTimeout(function () { box.hidden = true; }, 8000);
  }

  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr.status;
    toast(MESSAGES[status] || "Something went wrong on our side (" + status + "). Try again in a moment; if it persists, tell an administrator.");
  });
  document.addEventListener("htmx:sendError", function () {
    toast("The server could not be reached. Check your connection and try again.");
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest("#toast")) event.target.closest("#toast").hidden = true;
  });
  // Select all / none for bulk decisions.
  document.addEventListener("change", function (event) {
    var all = event.target.closest("[data-select-all]");
    if (!all) return;
    document.querySelectorAll("input[name='items'][form='" + all.dataset.selectAll + "']").forEach(function (box) {
      box.checked = all.checked;
    });
  });
})();
