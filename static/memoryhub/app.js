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
  // A form that asks first (data-confirm): nothing is sent unless the person agrees.
  // window.confirm by name: inside a form, a field called "confirm" would shadow it.
  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  // Live search forms (data-live="pause in ms"): typing searches after a pause ("typed"),
  // a filter's change at once ("filtered"), Enter or the button at once (submit). One
  // request each: the search box's own change (it fires as the box loses focus to the
  // button) is not a filter change, and an explicit search cancels the pending pause.
  function liveForm(element) {
    var form = element && element.form;
    return form && form.hasAttribute("data-live") ? form : null;
  }
  function fire(form, name) {
    clearTimeout(form._typing);
    form._searched = form.elements.q ? form.elements.q.value : "";
    htmx.trigger(form, name);
  }
  document.addEventListener("input", function (event) {
    var form = liveForm(event.target);
    if (!form || event.target.type !== "search") return;
    clearTimeout(form._typing);
    form._typing = setTimeout(function () {
      if (event.target.value !== form._searched) fire(form, "typed");
    }, Number(form.dataset.live) || 500);
  });
  document.addEventListener("change", function (event) {
    var form = liveForm(event.target);
    if (form && event.target.type !== "search") fire(form, "filtered");
  });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.hasAttribute("data-live")) {
      clearTimeout(form._typing);
      form._searched = form.elements.q ? form.elements.q.value : "";
    }
  }, true);

  // Select all / none for bulk decisions.
  document.addEventListener("change", function (event) {
    var all = event.target.closest("[data-select-all]");
    if (!all) return;
    document.querySelectorAll("input[name='items'][form='" + all.dataset.selectAll + "']").forEach(function (box) {
      box.checked = all.checked;
    });
  });
})();
