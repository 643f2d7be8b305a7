/* lore's site search: the site's own script, and the only one its pages run.
   It reads the index that assets/search-index.js set (window.loreSearch, built by
   lore.site.search), matches each query word by prefix, and shows the best notes.
   Note text is untrusted: it reaches the page through textContent only. */
(function () {
  "use strict";
  var MAX_RESULTS = 50;
  var MAX_EXPANSION = 400; // terms one query word may expand to by prefix
  var data = window.loreSearch;
  var form = document.querySelector("form.search");
  var input = form ? form.querySelector("input[name=q]") : null;
  var list = document.getElementById("results");
  var status = document.getElementById("search-status");
  if (!data || !input || !list || !status) {
    return;
  }
  var stop = new Set(data.stop);

  function words(text) {
    var folded = String(text)
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g, "");
    return (folded.match(/[\p{L}\p{N}]+/gu) || []).filter(function (word) {
      return word.length <= 40;
    });
  }

  function firstAtOrAfter(word) {
    var low = 0;
    var high = data.terms.length;
    while (low < high) {
      var middle = (low + high) >> 1;
      if (data.terms[middle] < word) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  function notesOf(index) {
    var found = [];
    var number = 0;
    data.postings[index].split(",").forEach(function (gap) {
      number += parseInt(gap, 16);
      found.push(number);
    });
    return found;
  }

  function search(query) {
    var asked = words(query).filter(function (word) {
      return !stop.has(word);
    });
    asked = Array.from(new Set(asked));
    var matched = new Map();
    var score = new Map();
    asked.forEach(function (word) {
      var best = new Map();
      var start = firstAtOrAfter(word);
      for (var i = start; i < data.terms.length && i - start < MAX_EXPANSION; i++) {
        if (data.terms[i].lastIndexOf(word, 0) !== 0) {
          break;
        }
        var weight = data.terms[i] === word ? 2 : 1;
        notesOf(i).forEach(function (note) {
          if ((best.get(note) || 0) < weight) {
            best.set(note, weight);
          }
        });
      }
      best.forEach(function (weight, note) {
        matched.set(note, (matched.get(note) || 0) + 1);
        score.set(note, (score.get(note) || 0) + weight);
      });
    });
    var found = Array.from(matched.keys()).map(function (note) {
      var entry = data.notes[note];
      var title = words(entry[1]);
      var inTitle = asked.filter(function (word) {
        return title.some(function (t) {
          return t.lastIndexOf(word, 0) === 0;
        });
      }).length;
      return {
        entry: entry,
        matched: matched.get(note),
        score: score.get(note) + 3 * inTitle,
      };
    });
    found.sort(function (a, b) {
      return (
        b.matched - a.matched ||
        b.entry[5] - a.entry[5] ||
        b.score - a.score ||
        (a.entry[4] < b.entry[4] ? 1 : a.entry[4] > b.entry[4] ? -1 : 0)
      );
    });
    return { asked: asked, found: found };
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text) {
      node.textContent = text;
    }
    return node;
  }

  function show(query) {
    list.replaceChildren();
    if (!query.trim()) {
      status.textContent = "Type words to search the " + data.notes.length + " notes.";
      return;
    }
    var result = search(query);
    if (!result.asked.length) {
      status.textContent = "Only common words: say more.";
      return;
    }
    var total = result.found.length;
    status.textContent =
      total === 0
        ? "No note matches."
        : total + " note" + (total === 1 ? "" : "s") +
          (total > MAX_RESULTS ? ", the best " + MAX_RESULTS + " shown." : ".");
    result.found.slice(0, MAX_RESULTS).forEach(function (hit) {
      var entry = hit.entry;
      var item = element("li");
      var link = element("a", "", entry[1]);
      link.href = "notes/" + encodeURIComponent(entry[0]) + ".html";
      item.appendChild(link);
      if (!entry[5]) {
        item.appendChild(document.createTextNode(" "));
        item.appendChild(element("span", "badge inactive", "inactive"));
      }
      item.appendChild(document.createTextNode(" "));
      item.appendChild(element("span", "meta", entry[3] + " · " + entry[4]));
      item.appendChild(element("p", "summary", entry[2]));
      list.appendChild(item);
    });
  }

  var query = new URLSearchParams(window.location.search).get("q") || "";
  input.value = query;
  show(query);
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      show(input.value);
      try {
        var url = new URL(window.location.href);
        url.searchParams.set("q", input.value);
        window.history.replaceState(null, "", url.toString());
      } catch (ignored) {
        /* a history the browser refuses to change is no reason to stop searching */
      }
    }, 120);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    show(input.value);
  });
})();
