// Keeps a page's main content current: every data-refresh seconds it
// fetches the page again and replaces <main>, while the tab is visible and
// nobody is typing in a form field. The element that had the keyboard
// focus gets it back (by id, or by its place among its row's controls).
(function () {
	"use strict";
	var main = document.getElementById("main");
	if (!main) return;
	var seconds = parseInt(main.getAttribute("data-refresh"), 10);
	if (!(seconds > 0)) return;

	function focusKey(el) {
		if (!el || !main.contains(el)) return null;
		if (el.id) return { id: el.id };
		var row = el.closest("[data-job],[data-run],[data-event],[data-node],[data-group]");
		if (!row) return null;
		var attrs = ["data-job", "data-run", "data-event", "data-node", "data-group"];
		for (var i = 0; i < attrs.length; i++) {
			var v = row.getAttribute(attrs[i]);
			if (v !== null) {
				var all = Array.prototype.slice.call(row.querySelectorAll("a,button,input,select"));
				return { attr: attrs[i], value: v, index: all.indexOf(el) };
			}
		}
		return null;
	}

	function restore(key) {
		if (!key) return;
		var el = null;
		if (key.id) {
			el = document.getElementById(key.id);
		} else {
			var rows = main.querySelectorAll("[" + key.attr + "]");
			for (var i = 0; i < rows.length; i++) {
				if (rows[i].getAttribute(key.attr) === key.value) {
					el = rows[i].querySelectorAll("a,button,input,select")[key.index] || null;
					break;
				}
			}
		}
		if (el) el.focus({ preventScroll: true });
	}

	function refresh() {
		if (document.visibilityState !== "visible") return;
		var active = document.activeElement;
		if (active && main.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) return;
		fetch(location.href, { credentials: "same-origin", headers: { "X-Almanac-Refresh": "1" } })
			.then(function (r) { return r.ok ? r.text() : null; })
			.then(function (html) {
				if (!html) return;
				var doc = new DOMParser().parseFromString(html, "text/html");
				var fresh = doc.getElementById("main");
				if (!fresh) return;
				var key = focusKey(document.activeElement);
				main.innerHTML = fresh.innerHTML;
				if (window.htmx) window.htmx.process(main);
				restore(key);
				main.setAttribute("data-refreshed", String(Date.now()));
			})
			.catch(function () {});
	}
	setInterval(refresh, seconds * 1000);
})();
