// rulekit explorer: hand-written, no library, no network.
// Every text from the data is set with textContent (never innerHTML), and every figure
// shown carries data-testid and its raw value in data-value.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("rulekit-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#9c755f", "#bab0ac"];

  // ---- DOM helpers ---------------------------------------------------------------------
  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function sv(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || (v === false && k !== "value")) return;
      if (k === "text") node.textContent = String(v);
      else if (k === "testid") node.setAttribute("data-testid", v);
      else if (k === "value" && (node.tagName === "INPUT" || node.tagName === "OPTION")) node.value = String(v);
      else if (k === "value") node.setAttribute("data-value", String(v));
      else if (k === "on") Object.keys(v).forEach(function (e) { node.addEventListener(e, v[e]); });
      else node.setAttribute(k === "cls" ? "class" : k, v === true ? "" : String(v));
    });
  }
  function add(node, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) { kid.forEach(function (k) { add(node, k); }); return; }
    node.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function fmt(v, digits) {
    if (v === null || v === undefined) return "—";
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toLocaleString("en-US");
    return v.toFixed(digits === undefined ? 6 : digits);
  }
  // a number on the page: the text for people, the exact value for programs
  function num(v, testid, digits) {
    return el("span", {cls: "num", testid: testid, value: v === null || v === undefined ? "null" : v,
                       text: fmt(v, digits)});
  }
  function stat(label, v, testid, digits, hi) {
    return el("div", {cls: "stat" + (hi ? " hi" : "")}, el("div", {cls: "k", text: label}),
              el("div", {cls: "v"}, num(v, testid, digits)));
  }
  function pill(k) {
    return el("span", {cls: "pill c" + (k % 6), text: D.classes[k]});
  }
  function table(head, rows, opts) {
    opts = opts || {};
    var t = el("table", {testid: opts.testid, "aria-label": opts.label});
    var tr = el("tr");
    head.forEach(function (h, i) {
      tr.appendChild(el("th", {scope: "col", cls: opts.numeric && opts.numeric.indexOf(i) >= 0 ? "n" : null,
                               text: h}));
    });
    t.appendChild(el("thead", null, tr));
    var body = el("tbody");
    rows.forEach(function (r) { body.appendChild(r); });
    t.appendChild(body);
    return t;
  }
  function row(cells, attrs) {
    var tr = el("tr", attrs);
    cells.forEach(function (c) {
      if (c && c.nodeName === "TD") tr.appendChild(c); else tr.appendChild(el("td", null, c));
    });
    return tr;
  }
  function ntd(node) { return el("td", {cls: "n"}, node); }

  // ---- bit sets (sample i = bit i%32 of word i/32) ---------------------------------------
  var N = D.n || 0;
  var WORDS = (N + 31) >>> 5;
  function decode(b64) {
    var s = atob(b64), bytes = new Uint8Array(WORDS * 4);
    for (var i = 0; i < s.length && i < bytes.length; i++) bytes[i] = s.charCodeAt(i);
    return new Uint32Array(bytes.buffer);
  }
  function pop(x) {
    x = x - ((x >>> 1) & 0x55555555);
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  function count(a) { var c = 0; for (var i = 0; i < a.length; i++) c += pop(a[i]); return c; }
  function countAnd(a, b) { var c = 0; for (var i = 0; i < a.length; i++) c += pop(a[i] & b[i]); return c; }
  function and(a, b) { var o = new Uint32Array(a.length); for (var i = 0; i < a.length; i++) o[i] = a[i] & b[i]; return o; }
  function andNot(a, b) { var o = new Uint32Array(a.length); for (var i = 0; i < a.length; i++) o[i] = a[i] & ~b[i]; return o; }
  function or(a, b) { var o = new Uint32Array(a.length); for (var i = 0; i < a.length; i++) o[i] = a[i] | b[i]; return o; }
  function full() {
    var o = new Uint32Array(WORDS);
    for (var i = 0; i < WORDS; i++) o[i] = 0xffffffff;
    if (N % 32) o[WORDS - 1] = (1 << (N % 32)) - 1;
    return o;
  }
  function bit(a, i) { return (a[i >>> 5] >>> (i & 31)) & 1; }
  var LABELS = (D.labels || []).map(decode);
  var CONDS = (D.conditions || []).map(function (c) { return decode(c.bits); });
  var POOL = (D.pool || []).map(function (p) { return decode(p.bits); });
  function labelOf(i) { for (var k = 0; k < LABELS.length; k++) if (bit(LABELS[k], i)) return k; return 0; }
  function conj(conds) { var o = full(); conds.forEach(function (j) { o = and(o, CONDS[j]); }); return o; }
  function disj(conds) { var o = new Uint32Array(WORDS); conds.forEach(function (j) { o = or(o, CONDS[j]); }); return o; }
  function classCounts(set) { return LABELS.map(function (l) { return countAnd(set, l); }); }
  function argmax(a) { var b = 0; for (var k = 1; k < a.length; k++) if (a[k] > a[b]) b = k; return b; }

  // ---- charts ----------------------------------------------------------------------------
  // a line chart: series [{name, color, points:[[x,y]...], dots, dash}], hlines [{y, name, color}]
  function lineChart(series, opts) {
    var W = opts.width || 620, H = opts.height || 250, L = 58, R = 30, T = 12, B = 34;
    var xs = [], ys = [];
    series.forEach(function (s) { s.points.forEach(function (p) { if (p[1] !== null) { xs.push(p[0]); ys.push(p[1]); } }); });
    (opts.hlines || []).forEach(function (h) { if (h.y !== null) ys.push(h.y); });
    if (!xs.length) return el("p", {cls: "note", text: "nothing to draw"});
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (x1 === x0) x1 = x0 + 1;
    if (y1 === y0) { y1 += Math.abs(y0) * 0.01 + 1e-3; y0 -= Math.abs(y0) * 0.01 + 1e-3; }
    var pad = (y1 - y0) * 0.06; y0 -= pad; y1 += pad;
    function X(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function Y(v) { return T + (1 - (v - y0) / (y1 - y0)) * (H - T - B); }
    var g = sv("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", style: "max-width:" + W * 1.25 + "px", role: "img", "aria-label": opts.label});
    g.appendChild(sv("title", {text: opts.label}));
    g.appendChild(sv("line", {cls: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B}));
    g.appendChild(sv("line", {cls: "axis", x1: L, y1: T, x2: L, y2: H - B}));
    for (var t = 0; t <= 4; t++) {
      var yv = y0 + (y1 - y0) * t / 4;
      g.appendChild(sv("line", {x1: L, x2: W - R, y1: Y(yv), y2: Y(yv), stroke: "#f0f2f5"}));
      g.appendChild(sv("text", {x: L - 6, y: Y(yv) + 4, "text-anchor": "end", text: tick(yv)}));
    }
    // x ticks: at most five, on whole numbers when the axis counts something
    var xticks = [];
    if (opts.xint) {
      var step = Math.max(1, Math.ceil((x1 - x0) / 4));
      for (var xv = Math.ceil(x0); xv <= x1 + 1e-9; xv += step) xticks.push(xv);
    } else {
      for (var q = 0; q <= 4; q++) xticks.push(x0 + (x1 - x0) * q / 4);
    }
    xticks.forEach(function (xv) {
      g.appendChild(sv("text", {x: X(xv), y: H - B + 16, "text-anchor": "middle",
                                text: opts.xint ? Math.round(xv).toLocaleString("en-US") : xv.toPrecision(3)}));
    });
    g.appendChild(sv("text", {x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle", text: opts.xlabel || ""}));
    (opts.hlines || []).forEach(function (h, i) {
      if (h.y === null) return;
      g.appendChild(sv("line", {x1: L, x2: W - R, y1: Y(h.y), y2: Y(h.y), stroke: h.color, "stroke-dasharray": "5 4", "stroke-width": 1.5}));
      // labels alternate right and left, so two lines at one height stay readable
      g.appendChild(sv("text", {x: i % 2 ? L + 6 : W - R - 4, y: Y(h.y) - 4, "text-anchor": i % 2 ? "start" : "end", text: h.name, style: "fill:" + h.color}));
    });
    series.forEach(function (s) {
      var pts = s.points.filter(function (p) { return p[1] !== null; });
      if (s.line !== false && pts.length > 1) {
        g.appendChild(sv("polyline", {fill: "none", stroke: s.color, "stroke-width": s.width || 2,
          "stroke-dasharray": s.dash || null, "stroke-linejoin": "round",
          points: pts.map(function (p) { return X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); }).join(" ")}));
      }
      if (s.dots) pts.forEach(function (p, i) {
        var hollow = s.hollow && s.hollow[i];
        g.appendChild(sv("circle", {cx: X(p[0]), cy: Y(p[1]), r: s.r || 3, fill: hollow ? "#fff" : s.color, stroke: s.color}));
      });
    });
    var legend = el("div", {cls: "legend"});
    series.concat(opts.hlines || []).forEach(function (s) {
      legend.appendChild(el("span", null, el("i", {style: "background:" + s.color}), s.name));
    });
    return el("div", null, g, legend);
  }

  function tick(v) {
    if (v !== 0 && Math.abs(v) < 1e-3) return v.toExponential(1);
    return Math.abs(v) >= 1e4 ? Math.round(v).toLocaleString("en-US") : String(Number(v.toPrecision(4)));
  }

  // ---- page scaffolding ------------------------------------------------------------------
  var tabs = document.getElementById("tabs"), views = document.getElementById("views");
  document.getElementById("title").textContent = D.title || "rulekit explorer";
  var VIEWS = [];
  function addView(id, label, build) { VIEWS.push({id: id, label: label, build: build}); }
  function showView(id) {
    VIEWS.forEach(function (v) {
      v.tab.setAttribute("aria-selected", v.id === id ? "true" : "false");
      v.section.hidden = v.id !== id;
    });
  }

  // ---- view: data -> conditions ----------------------------------------------------------
  function dataView(sec) {
    var classStats = D.classes.map(function (c, k) {
      return stat("class " + c, D.class_counts[k], "class-count-" + k);
    });
    sec.appendChild(el("div", {cls: "stats"}, stat("rows", D.n, "n-rows"), classStats,
      D.columns && D.columns.length ? stat("columns", D.n_columns, "column-count") : null,
      stat(D.columns && D.columns.length ? "columns giving conditions" : "features", D.features.length, "feature-count"),
      stat("conditions", D.conditions.length, "condition-count"),
      D.pool_info && D.pool_info.mined !== undefined ? stat("antecedents mined", D.pool_info.mined, "antecedent-count") : null));
    sec.appendChild(el("p", {cls: "note", text: "Step 1 of every rule learner: each column becomes yes/no conditions " +
      "(thresholds for numbers, one test per frequent category). Step 2: conjunctions of conditions that hold often " +
      "enough are mined as antecedents, the if-parts a rule list picks from."}));
    var grid = el("div", {cls: "grid"});
    sec.appendChild(grid);

    // every column: its thresholds, or the binarizer's reason for giving no condition
    var byName = {};
    D.features.forEach(function (f, fi) { byName[f.name] = fi; });
    function featureRow(f, fi) {
      var th = f.thresholds.length ? f.thresholds.map(function (t, k) {
        return [k ? ", " : "", el("span", {cls: "num", testid: "threshold-" + fi + "-" + k, value: t, text: f.threshold_text[k]})];
      }) : el("span", {cls: "muted", text: "categories"});
      return row([el("span", {testid: "feature-name-" + fi, text: f.name}), el("span", null, th),
                  ntd(num(f.conditions.length, "feature-conditions-" + fi))]);
    }
    var silent = 0, frows = [];
    if (D.columns && D.columns.length) {
      D.columns.forEach(function (c) {
        var fi = byName[c.name];
        if (c.conditions > 0 && fi !== undefined) { frows.push(featureRow(D.features[fi], fi)); return; }
        var k = silent++;
        frows.push(row([el("span", {cls: "muted", testid: "column-none-name-" + k, text: c.name}),
                        el("span", {cls: "why", testid: "column-none-reason-" + k, value: c.reason, text: c.reason}),
                        ntd(num(0, "column-none-conditions-" + k))], {cls: "silent"}));
      });
    } else {
      frows = D.features.map(featureRow);
    }
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "Columns and their thresholds"}),
      silent ? el("p", {cls: "note", testid: "columns-note", text: silent + " of the " + D.columns.length +
        " columns give no condition; the binarizer's reason is beside each. A rule can only use the others."}) : null,
      table(["column", silent ? "thresholds, or why it gives no condition" : "thresholds", "conditions"], frows,
            {numeric: [2], testid: "features-table", label: "columns and thresholds"})));

    // conditions with support bars (the bars are the chart; the numbers beside them the table)
    var crows = D.conditions.map(function (c, j) {
      var share = c.support / D.n;
      return row([el("span", {cls: "cond", testid: "condition-text-" + j, text: c.text}),
                  ntd(num(c.support, "condition-support-" + j)),
                  el("td", {style: "white-space:nowrap"}, el("span", {cls: "barwrap", "aria-hidden": "true"},
                    el("span", {cls: "bar", style: "width:" + (100 * share).toFixed(1) + "%"})),
                    " ", num(share, "condition-share-" + j, 3))]);
    });
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "Conditions and their support"}),
      el("p", {cls: "note", text: "Support: rows where the condition holds."}),
      el("div", {cls: "scroll"}, table(["condition", "support", "share of rows"], crows,
        {numeric: [1], testid: "conditions-table", label: "conditions"}))));

    // antecedents, sortable
    if (D.pool && D.pool.length) {
      var info = D.pool_info, holder = el("div", {cls: "scroll"}), order = "support";
      var filter = el("input", {type: "search", placeholder: "filter antecedents", "aria-label": "filter antecedents", testid: "ante-filter"});
      var drawAnte = function () {
        var q = filter.value.toLowerCase();
        var idx = D.pool.map(function (p, i) { return i; }).filter(function (i) { return D.pool[i].text.toLowerCase().indexOf(q) >= 0; });
        idx.sort(function (a, b) {
          var A = D.pool[a], B = D.pool[b];
          if (order === "support") return B.support - A.support || A.id - B.id;
          if (order === "length") return A.conditions.length - B.conditions.length || A.id - B.id;
          return A.text < B.text ? -1 : A.text > B.text ? 1 : 0;
        });
        clear(holder);
        holder.appendChild(table(["#", "antecedent", "conditions", "support"], idx.map(function (i) {
          var p = D.pool[i];
          return row([num(p.id, "ante-id-" + p.id), el("span", {cls: "cond", text: p.text}),
                      ntd(num(p.conditions.length, "ante-len-" + p.id)), ntd(num(p.support, "ante-support-" + p.id))]);
        }), {numeric: [2, 3], testid: "antecedents-table", label: "antecedents"}));
      };
      var sortBtn = function (key, label) {
        return el("button", {cls: "sm", testid: "sort-" + key, text: "sort by " + label,
                             on: {click: function () { order = key; drawAnte(); }}});
      };
      filter.addEventListener("input", drawAnte);
      var note = info.sampled ? "The page holds " + info.shown + " of the " + info.in_scope +
        " antecedents in scope (the model's, then the most frequent): the rest would make the page too large." :
        "All " + info.shown + " antecedents" + (info.max_card ? " of up to " + info.max_card + " conditions (the certificate's scope)" : "") + ".";
      grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "Antecedents mined"}),
        el("p", {cls: "note", text: note}), el("div", {cls: "toolbar"}, filter, sortBtn("support", "support"),
        sortBtn("length", "length"), sortBtn("text", "text")), holder));
      drawAnte();
    }
    // sample x rule capture picture
    var rowsets = modelRows();
    if (rowsets) sec.appendChild(capturePicture(rowsets));
  }

  // the fitted model's rows as bit sets: [{label, holds}] and which decides each sample
  function modelRows() {
    var m = D.model;
    if (m.type === "RuleList") {
      return m.rules.map(function (r, k) { return {name: (k ? "elif " : "if ") + r.text, holds: conj(r.conditions)}; })
        .concat([{name: "else", holds: full()}]);
    }
    if (m.type === "RuleSet") {
      return m.clauses.map(function (c, k) {
        return {name: "clause " + (k + 1) + ": " + c.text, holds: m.form === "dnf" ? conj(c.conditions) : disj(c.conditions)};
      });
    }
    return null;
  }

  function capturePicture(rowsets) {
    // samples sorted by the first row that holds (for a rule list: the rule that fires), then label
    var K = rowsets.length, first = new Int32Array(N), lab = new Int32Array(N), i, k;
    for (i = 0; i < N; i++) {
      first[i] = K;
      for (k = 0; k < K; k++) if (bit(rowsets[k].holds, i)) { first[i] = k; break; }
      lab[i] = labelOf(i);
    }
    var order = Array.from({length: N}, function (_, j) { return j; });
    order.sort(function (a, b) { return first[a] - first[b] || lab[a] - lab[b] || a - b; });
    var bins = Math.min(N, 480), W = 760, L = 250, T = 8, rh = 22, H = T + (K + 1) * rh + 30;
    var g = sv("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", style: "max-width:1100px", role: "img",
      "aria-label": "samples (columns, sorted by the rule that decides them) against rules (rows)"});
    var bw = (W - L - 10) / bins;
    rowsets.forEach(function (rs, k) {
      var y = T + k * rh;
      var name = rs.name.length > 40 ? rs.name.slice(0, 39) + "…" : rs.name;
      g.appendChild(sv("text", {x: L - 8, y: y + 15, "text-anchor": "end", text: name}, sv("title", {text: rs.name})));
      for (var b = 0; b < bins; b++) {
        var lo = Math.floor(b * N / bins), hi = Math.floor((b + 1) * N / bins), holds = 0, fires = 0, pos = [];
        for (var q = lo; q < hi; q++) {
          var s = order[q];
          if (bit(rs.holds, s)) { holds++; if (first[s] === k) { fires++; pos.push(lab[s]); } }
        }
        if (!holds) continue;
        var n = hi - lo, color = "#c9ced8", op = holds / n;
        if (fires) {
          var cnt = D.classes.map(function () { return 0; });
          pos.forEach(function (l) { cnt[l]++; });
          color = COLORS[argmax(cnt) % COLORS.length]; op = 0.35 + 0.65 * fires / n;
        }
        g.appendChild(sv("rect", {x: L + b * bw, y: y + 3, width: bw + 0.3, height: rh - 6, fill: color, "fill-opacity": op.toFixed(2)}));
      }
    });
    var yl = T + K * rh;
    g.appendChild(sv("text", {x: L - 8, y: yl + 15, "text-anchor": "end", text: "true label"}));
    for (var b2 = 0; b2 < bins; b2++) {
      var lo2 = Math.floor(b2 * N / bins), hi2 = Math.floor((b2 + 1) * N / bins), c = D.classes.map(function () { return 0; });
      for (var q2 = lo2; q2 < hi2; q2++) c[lab[order[q2]]]++;
      g.appendChild(sv("rect", {x: L + b2 * bw, y: yl + 3, width: bw + 0.3, height: rh - 6, fill: COLORS[argmax(c) % COLORS.length]}));
    }
    g.appendChild(sv("text", {x: (L + W) / 2, y: H - 6, "text-anchor": "middle", text: "samples (" + N.toLocaleString("en-US") + "), sorted by the row that decides them, then by label"}));
    var legend = el("div", {cls: "legend"}, el("span", null, el("i", {style: "background:#c9ced8"}), "condition holds, an earlier row decided"),
      D.classes.map(function (c, k) { return el("span", null, el("i", {style: "background:" + COLORS[k % COLORS.length]}), "decides, majority " + c); }));
    // the table alternative
    var trs = rowsets.map(function (rs, k) {
      var decided = new Uint32Array(WORDS), j;
      for (j = 0; j < N; j++) if (first[j] === k) decided[j >>> 5] |= 1 << (j & 31);
      var cc = classCounts(decided);
      return row([el("span", {cls: "cond", text: rs.name}), ntd(num(count(rs.holds), "capture-holds-" + k)),
                  ntd(num(count(decided), "capture-decides-" + k)),
                  el("td", {cls: "n"}, cc.map(function (v, c) { return [c ? " / " : "", num(v, "capture-class-" + k + "-" + c)]; }))]);
    });
    return el("div", {cls: "card", style: "margin-top:14px"}, el("h2", {text: "Which samples each rule captures"}),
      el("p", {cls: "note", text: "Each column is a bin of samples; a row is a rule of the fitted model. Grey: the condition holds " +
        "but an earlier rule already decided the sample. Colour: this rule decides it."}),
      g, legend, el("details", null, el("summary", {text: "table of this picture"}),
        table(["rule", "holds on", "decides", "decided per class (" + D.classes.join(" / ") + ")"], trs,
              {numeric: [1, 2, 3], testid: "capture-table", label: "capture counts"})));
  }

  // ---- view: edit a rule list (CORELS) --------------------------------------------------
  function editView(sec) {
    var C = D.corels, c = C.c;
    var list = C.optimal.filter(function (a) { return a >= 0; }), history = [];
    var cur = null, sample = 0;

    function evaluate(lst) {
      // first-match capture; each rule predicts its majority class (lowest class on ties),
      // mistakes are integer counts; objective = mistakes / n + c * K as the engine computes it
      var rem = full(), mistakes = 0, rules = [];
      lst.forEach(function (a) {
        var cap = and(POOL[a], rem), cc = classCounts(cap), p = argmax(cc), tot = cc.reduce(function (s, v) { return s + v; }, 0);
        mistakes += tot - cc[p]; rules.push({a: a, counts: cc, pred: p, captured: tot, mistakes: tot - cc[p]});
        rem = andNot(rem, cap);
      });
      var dc = classCounts(rem), dp = argmax(dc), dt = dc.reduce(function (s, v) { return s + v; }, 0);
      mistakes += dt - dc[dp];
      return {rules: rules, def: {counts: dc, pred: dp, captured: dt, mistakes: dt - dc[dp]},
              mistakes: mistakes, objective: mistakes / N + c * lst.length};
    }
    function change(next) { history.push(list.slice()); list = next; draw(); }

    var objBox = el("div"), listBox = el("div"), poolBox = el("div", {cls: "scroll"}), sampleBox = el("div"), exportBox = el("textarea", {testid: "export-json", readonly: true, "aria-label": "exported rule list (JSON)"});
    var undoBtn = el("button", {cls: "sm", testid: "undo", text: "undo", on: {click: function () { if (history.length) { list = history.pop(); draw(); } }}});
    var toolbar = el("div", {cls: "toolbar"},
      el("button", {cls: "sm", testid: "reset-optimal", text: "back to the certified list", on: {click: function () { change(C.optimal.filter(function (a) { return a >= 0; })); }}}),
      el("button", {cls: "sm", testid: "clear-list", text: "empty list", on: {click: function () { change([]); }}}),
      undoBtn,
      el("button", {cls: "sm primary", testid: "export", text: "export JSON", on: {click: exportList}}));
    var filter = el("input", {type: "search", placeholder: "filter", "aria-label": "filter antecedents", testid: "pool-filter", on: {input: function () { drawPool(); }}});

    sec.appendChild(el("p", {cls: "note", text: "Build a rule list by hand from the mined antecedents. The page scores it " +
      "exactly as CORELS does: mistakes / N + c × rules (N rows), with c = " + c + ". No list can score below " +
      "the certified lower bound; when the search was proved optimal, that bound is the optimum."}));
    if (!C.same_data) sec.appendChild(el("div", {cls: "warnbox", text: "These rows are not the ones the model was trained on: " +
      "the certificate is about the training rows, so the comparison below is only indicative."}));
    if (!C.bound_covers_editor) sec.appendChild(el("div", {cls: "warnbox", testid: "bound-note", text: "The certificate does not bound every " +
      "list you can build here: " + C.bound_note + ". A list may score below it."}));
    sec.appendChild(objBox);
    var grid = el("div", {cls: "grid"});
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "Your rule list"}), toolbar, listBox,
      el("h3", {text: "Which rule fired?"}), sampleBox, el("h3", {text: "Export"}),
      el("p", {cls: "note", text: "A model file: rulekit.load(path).predict(X) reads it."}), exportBox));
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "Antecedents"}), el("div", {cls: "toolbar"}, filter), poolBox));
    sec.appendChild(grid);

    function drawObjective() {
      var opt = C.objective, lb = C.lower_bound, o = cur.objective;
      clear(objBox);
      var gap = opt === null ? null : o - opt;
      objBox.appendChild(el("div", {cls: "stats"},
        stat("your objective", o, "edit-objective", 6, true),
        stat("mistakes", cur.mistakes, "edit-mistakes"),
        stat("rules", list.length, "edit-length"),
        stat("accuracy", 1 - cur.mistakes / N, "edit-accuracy", 4),
        stat(C.proved ? "certified optimum" : "best found (" + C.status + ")", opt, "cert-objective", 6),
        stat("lower bound", lb, "cert-lower-bound", 6),
        stat("above the optimum by", gap, "edit-gap", 6)));
      // one scale with the bound, the optimum and this list
      var vals = [lb, opt, o].filter(function (v) { return v !== null; });
      var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals), span = (hi - lo) || Math.abs(hi) * 0.05 || 0.01;
      lo -= span * 0.15; hi += span * 0.15;
      var pos = function (v) { return (100 * (v - lo) / (hi - lo)).toFixed(2) + "%"; };
      var sc = el("div", {cls: "scale", role: "img", "aria-label": "objective scale: lower bound, optimum and your list"}, el("div", {cls: "track"}));
      [[lb, "lower bound", "#868e96"], [opt, C.proved ? "optimum" : "best found", "#2b8a3e"], [o, "yours", "#3b5bdb"]].forEach(function (m, i) {
        if (m[0] === null) return;
        sc.appendChild(el("div", {cls: "mark", style: "left:" + pos(m[0]) + ";background:" + m[2]}));
        sc.appendChild(el("div", {cls: "lab", style: "left:" + pos(m[0]) + ";color:" + m[2] + ";top:" + [-8, 36, 50][i] + "px", text: m[1]}));
      });
      objBox.appendChild(el("div", {cls: "card", style: "margin-bottom:12px"}, sc,
        el("p", {cls: "note", testid: "edit-verdict", text: gap === null ? "" : Math.abs(gap) <= 1e-12 * Math.max(1, Math.abs(opt)) ?
          (C.proved ? "This list scores the certified optimum." : "This list scores as well as the best list found.") :
          gap > 0 ? "Worse than the optimum by " + gap.toFixed(6) + ", the cost of " + Math.round(gap * N) + " mistakes (a rule costs c·n = " + Math.round(c * N) + ")." :
          "Below the best found: the search was stopped before it finished (" + C.status + ")."})));
    }
    function drawList() {
      clear(listBox);
      var fired = firedRule(sample);
      var trs = cur.rules.map(function (r, k) {
        var p = D.pool[r.a];
        return row([el("span", {cls: "kw", text: k ? "elif" : "if"}), el("span", {cls: "cond", testid: "rule-text-" + k, value: p.id, text: p.text}),
          el("span", null, "then ", pill(r.pred)),
          ntd(num(r.captured, "rule-captured-" + k)), ntd(num(r.mistakes, "rule-mistakes-" + k)),
          el("td", null, el("button", {cls: "sm", testid: "rule-up-" + k, "aria-label": "move rule " + (k + 1) + " up", disabled: k === 0, text: "↑",
                                       on: {click: function () { var n = list.slice(); n.splice(k - 1, 0, n.splice(k, 1)[0]); change(n); }}}), " ",
                         el("button", {cls: "sm", testid: "rule-down-" + k, "aria-label": "move rule " + (k + 1) + " down", disabled: k === list.length - 1, text: "↓",
                                       on: {click: function () { var n = list.slice(); n.splice(k + 1, 0, n.splice(k, 1)[0]); change(n); }}}), " ",
                         el("button", {cls: "sm", testid: "rule-remove-" + k, "aria-label": "remove rule " + (k + 1), text: "✕",
                                       on: {click: function () { var n = list.slice(); n.splice(k, 1); change(n); }}}))],
          {cls: fired === k ? "fired" : null});
      });
      trs.push(row([el("span", {cls: "kw", text: "else"}), el("span", {cls: "muted", text: "(otherwise)"}), el("span", null, "then ", pill(cur.def.pred)),
        ntd(num(cur.def.captured, "default-captured")), ntd(num(cur.def.mistakes, "default-mistakes")), ""], {cls: fired === list.length ? "fired" : null}));
      listBox.appendChild(table(["", "antecedent", "prediction", "captured", "mistakes", ""], trs, {numeric: [3, 4], testid: "edit-list", label: "your rule list"}));
      undoBtn.disabled = !history.length;
    }
    function drawPool() {
      clear(poolBox);
      var q = filter.value.toLowerCase(), used = {};
      list.forEach(function (a) { used[a] = true; });
      var trs = [];
      D.pool.forEach(function (p, i) {
        if (p.text.toLowerCase().indexOf(q) < 0) return;
        trs.push(row([el("button", {cls: "sm", testid: "add-" + p.id, "aria-label": "add " + p.text, disabled: !!used[i], text: "add",
                                    on: {click: function () { change(list.concat([i])); }}}),
                      el("span", {cls: "cond", text: p.text}), ntd(num(p.support, "pool-support-" + p.id))]));
      });
      poolBox.appendChild(table(["", "antecedent", "support"], trs, {numeric: [2], testid: "pool-table", label: "antecedents to add"}));
    }
    function firedRule(i) {
      for (var k = 0; k < list.length; k++) if (bit(POOL[list[k]], i)) return k;
      return list.length;
    }
    var sampleInput = el("input", {type: "number", min: 0, max: N - 1, value: 0, testid: "sample-input", "aria-label": "sample number"});
    sampleInput.addEventListener("change", function () {
      var v = parseInt(sampleInput.value, 10);
      sample = isFinite(v) ? Math.max(0, Math.min(N - 1, v)) : 0; sampleInput.value = sample; draw();
    });
    var sampleOut = el("div");
    sampleBox.appendChild(el("div", {cls: "toolbar"}, el("label", null, "sample ", sampleInput, " of 0–" + (N - 1))));
    sampleBox.appendChild(sampleOut);
    function drawSample() {
      clear(sampleOut);
      var k = firedRule(sample), lab = labelOf(sample);
      var pred = k < list.length ? cur.rules[k].pred : cur.def.pred;
      sampleOut.appendChild(el("p", null, "Sample ", num(sample, "sample-index"), " (label ", pill(lab), ") is decided by ",
        k < list.length ? el("b", {testid: "fired-rule", value: k, text: "rule " + (k + 1) + ": " + D.pool[list[k]].text}) :
                          el("b", {testid: "fired-rule", value: k, text: "the default rule"}),
        ", which predicts ", pill(pred), pred === lab ? el("span", {cls: "ok", text: " ✓"}) : el("span", {cls: "bad", text: " ✗"})));
      var R = D.rows;
      if (sample < R.rows) {
        sampleOut.appendChild(el("div", {style: "overflow-x:auto"}, table(R.columns, [row(R.columns.map(function (col, j) {
          var v = R.values[j][sample]; return el("span", {testid: "sample-value-" + j, text: v === null ? "missing" : v});
        }))], {testid: "sample-row", label: "the sample's values"})));
      }
    }
    function exportList() {
      var S = JSON.parse(JSON.stringify(D.saved)), classes = S.model.classes;
      S.model.rules = cur.rules.map(function (r) {
        return {conditions: D.pool[r.a].conditions.slice(), prediction: classes[r.pred], counts: r.counts.slice()};
      });
      S.model["default"] = {conditions: [], prediction: classes[cur.def.pred], counts: cur.def.counts.slice()};
      S.metadata = S.metadata || {};
      S.metadata.edited_in = "rulekit explorer";
      S.metadata.objective = cur.objective;
      S.metadata.c = c;
      var text = JSON.stringify(S, null, 1);
      exportBox.value = text;
      try {
        var a = el("a", {href: URL.createObjectURL(new Blob([text], {type: "application/json"})), download: "rule_list.json"});
        document.body.appendChild(a); a.click(); a.remove();
      } catch (e) { /* the text box still holds the file */ }
    }
    function draw() { cur = evaluate(list); drawObjective(); drawList(); drawPool(); drawSample(); }
    draw();
  }

  // ---- view: the certificate and search statistics (CORELS) -------------------------------
  function searchView(sec) {
    var C = D.corels;
    sec.appendChild(el("div", {cls: "stats"}, stat("objective", C.objective, "search-objective", 6),
      stat("lower bound", C.lower_bound, "search-lower-bound", 6),
      C.stats ? stat("prefixes expanded", C.stats.nodes_expanded, "search-expanded") : null,
      C.stats ? stat("prefixes evaluated", C.stats.nodes_evaluated, "search-evaluated") : null));
    sec.appendChild(el("p", {cls: "note", testid: "search-scope", text: "Status: " + C.status + ". Over " + C.scope + "."}));
    if (C.replay) sec.appendChild(eventChart(C));
    else if (C.trace && C.trace.nodes && C.trace.nodes.length > 1) sec.appendChild(sampledChart(C));
    if (C.stats) {
      var reasons = Object.keys(C.stats.pruned);
      var total = reasons.reduce(function (s, r) { return s + C.stats.pruned[r]; }, 0) || 1;
      sec.appendChild(el("div", {cls: "card", style: "margin-top:14px"}, el("h2", {text: "Prefixes pruned, by reason"}),
        table(C.replay ? ["reason", "pruned (engine)", "in the event log", ""] : ["reason", "pruned", ""], reasons.map(function (r) {
          return row([el("code", {text: r}), ntd(num(C.stats.pruned[r], "pruned-" + r)),
            C.replay ? ntd(num(C.replay.counts.prune[r], "replay-pruned-" + r)) : null,
            el("td", null, el("span", {cls: "barwrap", "aria-hidden": "true"}, el("span", {cls: "bar", style: "width:" + (100 * C.stats.pruned[r] / total).toFixed(1) + "%"})))].filter(Boolean));
        }), {numeric: C.replay ? [1, 2] : [1], testid: "pruned-table", label: "pruned by reason"}),
        el("p", {cls: "note", text: C.replay ? "The engine's counters and the event log's counts, side by side: they agree when the log was not cut short." :
          "A step-by-step replay of the search was not recorded; these are the search's final counts. Fit with CorelsClassifier(trace=\"events\") to record it."})));
    }
    if (C.replay) replayView(sec, C);
  }

  // the incumbent and the lower bound from the engine's samples alone: dots where it looked,
  // dashed joins (the path between two samples was not recorded), and the page says so
  function sampledChart(C) {
    var T = C.trace, m = T.nodes.length;
    var pts = function (key) { return T.nodes.map(function (x, i) { return [x, T[key][i]]; }); };
    var few = m < 20;
    return el("div", {cls: "card", testid: "search-chart", value: "samples"}, el("h2", {text: "Incumbent and lower bound meeting (sampled)"}),
      lineChart([{name: "best objective (incumbent), " + m + " samples", color: "#3b5bdb", points: pts("best_objective"), dots: true, dash: "2 3"},
                 {name: "lower bound of what is left, " + m + " samples", color: "#868e96", points: pts("lower_bound"), dots: true, dash: "2 3"}],
                {label: "objective against prefixes expanded, sampled", xlabel: "prefixes expanded", xint: true}),
      el("p", {cls: few ? "infobox" : "note", testid: "search-chart-note"}, "Drawn from ", num(m, "search-chart-samples"),
        " samples the search took of its progress as it ran (at moments set by the clock, so they differ from run to run" +
        (C.trace_sampled ? "; evenly thinned to fit the page" : "") + "). The dots are the samples; the dashed joins are not the search's path, " +
        "which was not recorded" + (few ? ": with so few samples the chart says little." : ".") +
        " Fit with CorelsClassifier(trace=\"events\") (rulekit explore --trace) to draw the incumbent from the search's event log."),
      el("details", null, el("summary", {text: "table"}), el("div", {cls: "scroll"}, table(["expanded", "best objective", "lower bound"],
        T.nodes.map(function (x, i) { return row([ntd(num(x, "trace-nodes-" + i)), ntd(num(T.best_objective[i], "trace-best-" + i)), ntd(num(T.lower_bound[i], "trace-lb-" + i))]); }),
        {numeric: [0, 1, 2], testid: "trace-table"}))));
  }

  // the incumbent from the event log: one step per new best list, at the expansion it came
  function eventChart(C) {
    var R = C.replay, E = R.events, n = E.i.length, bests = [], q;
    for (q = 0; q < n; q++) if (E.k[q] === 2) bests.push([E.x[q], E.v[q], q]);
    var stepPts = [];
    bests.forEach(function (pt, t) { if (t) stepPts.push([pt[0], bests[t - 1][1]]); stepPts.push([pt[0], pt[1]]); });
    if (bests.length) stepPts.push([Math.max(R.counts.expand, bests[bests.length - 1][0]), bests[bests.length - 1][1]]);
    var series = [{name: "best objective: every new best list in the event log", color: "#2b8a3e", points: stepPts}];
    var m = C.trace && C.trace.nodes ? C.trace.nodes.length : 0;
    if (m) series.push({name: "lower bound of what is left (" + m + " samples by the engine)", color: "#868e96", dash: "2 3", dots: true, r: 2.5,
      points: C.trace.nodes.map(function (x, i) { return [x, C.trace.lower_bound[i]]; })});
    var ptext = function (p) {
      return p.length ? p.map(function (a) { return R.labels[String(a)] || ("#" + a); }).join("  \u25b8  ") : "(empty list)";
    };
    return el("div", {cls: "card", testid: "search-chart", value: "events"},
      el("h2", {text: "The incumbent falls, the lower bound rises: they meet at the certificate"}),
      lineChart(series, {label: "best objective and lower bound against prefixes expanded", xlabel: "prefixes expanded", xint: true,
        hlines: [{y: C.objective, name: "certified objective " + fmt(C.objective, 5), color: "#3b5bdb"}]}),
      el("p", {cls: "note", testid: "search-chart-note"}, "The incumbent is drawn from the event log: ", num(bests.length, "search-chart-best"),
        " new best lists, each at the number of prefixes expanded when it was found" + (R.truncated ? " (until the log was full)" : "") +
        ". The lower bound of what is left is not in the log: its dots are the " + m + " samples the engine took as it ran."),
      el("details", null, el("summary", {text: "table: the new best lists"}), el("div", {cls: "scroll"},
        table(["event", "expanded so far", "objective", "list"], bests.map(function (b, t) {
          var q2 = b[2];
          return row([ntd(num(E.i[q2], "replay-best-event-" + t)), ntd(num(E.x[q2], "replay-best-x-" + t)),
                      ntd(num(E.v[q2], "replay-best-value-" + t, 6)), el("span", {cls: "cond", text: ptext(E.p[q2])})]);
        }), {numeric: [0, 1, 2], testid: "replay-best-table"}))));
  }

  // ---- the search replay (trace="events") -------------------------------------------------
  var KINDS = ["expand", "prune", "new best"];
  function replayView(sec, C) {
    var R = C.replay, E = R.events, n = E.i.length;
    function ptext(p) {
      if (!p.length) return "(empty list)";
      return p.map(function (a) { return R.labels[String(a)] || ("#" + a); }).join("  \u25b8  ");
    }
    function pkey(p) { return p.join(","); }
    var card = el("div", {cls: "card", style: "margin-top:14px"}, el("h2", {text: "Search replay"}));
    sec.appendChild(card);
    var facts = "The event log holds " + R.total.toLocaleString("en-US") + " events: every prefix expanded (with its lower bound), every child pruned (with the bound that pruned it) and every new best list.";
    if (R.truncated) facts += " The log was full after " + R.cap.toLocaleString("en-US") + " events; " + R.truncated.toLocaleString("en-US") + " later events were counted by the engine but not recorded, so the log's counts fall short of the engine's.";
    if (R.sampled) facts += " This page shows " + R.shown.toLocaleString("en-US") + " of them, chosen evenly through the log (first and last kept, every new best list kept); counts and the tree-size number below are over the whole log.";
    card.appendChild(el("p", {cls: R.truncated || R.sampled ? "infobox" : "note", testid: "replay-note", text: facts}));
    card.appendChild(el("div", {cls: "stats"}, stat("events in the log", R.total, "replay-total"),
      stat("expansions in the log", R.counts.expand, "replay-expanded"),
      stat("prunes in the log", R.reasons.reduce(function (t, r) { return t + R.counts.prune[r]; }, 0), "replay-pruned"),
      stat("new best lists", R.counts.best, "replay-best"), stat("events shown", R.shown, "replay-shown")));

    // -- the scrubber and the growing prefix tree --
    var slider = el("input", {type: "range", min: 0, max: Math.max(0, n - 1), step: 1, value: "0", testid: "replay-scrubber",
                              "aria-label": "event of the replay", style: "width:100%"});
    var now = el("div", {cls: "stats"});
    var nowText = el("p", {cls: "note", testid: "replay-event-text"});
    // layout: expanded prefixes in depth-first (lexicographic) order left to right, depth downwards
    var exp = [];
    for (var j = 0; j < n; j++) if (E.k[j] === 0) exp.push(j);
    var order = exp.slice().sort(function (a, b) {
      var p = E.p[a], q = E.p[b];
      for (var t = 0; t < Math.min(p.length, q.length); t++) if (p[t] !== q[t]) return p[t] - q[t];
      return p.length - q.length;
    });
    var rank = {}, depth = 0, byKey = {};
    order.forEach(function (j, r) { rank[j] = r; depth = Math.max(depth, E.p[j].length); byKey[pkey(E.p[j])] = j; });
    var TW = 900, TH = 40 + 46 * depth;
    function TX(j) { return 20 + (order.length > 1 ? rank[j] / (order.length - 1) : 0.5) * (TW - 40); }
    function TY(len) { return 24 + len * 46; }
    var tree = sv("svg", {viewBox: "0 0 " + TW + " " + TH, width: "100%", style: "max-width:" + TW + "px", role: "img",
                          "aria-label": "prefix tree up to the chosen event", testid: "replay-tree"});
    tree.appendChild(sv("title", {text: "The prefix tree: one dot per expanded prefix, its depth the number of rules"}));
    for (var d = 0; d <= depth; d++) tree.appendChild(sv("text", {x: 2, y: TY(d) - 8, text: d === 0 ? "empty list" : d + (d === 1 ? " rule" : " rules")}));
    var edges = sv("g", {stroke: "#c5cde0", "stroke-width": 0.8}), dots = sv("g");
    tree.appendChild(edges); tree.appendChild(dots);
    var shapes = {};
    exp.forEach(function (j) {
      var p = E.p[j], parent = byKey[pkey(p.slice(0, -1))];
      var line = (p.length && parent !== undefined) ? sv("line", {x1: TX(parent), y1: TY(p.length - 1), x2: TX(j), y2: TY(p.length)}) : null;
      if (line) edges.appendChild(line);
      var dot = sv("circle", {cx: TX(j), cy: TY(p.length), r: exp.length > 600 ? 1.6 : 3, fill: "#4e79a7"});
      dot.appendChild(sv("title", {text: ptext(p) + " \u2014 lower bound " + fmt(E.v[j], 4)}));
      dots.appendChild(dot);
      shapes[j] = [dot, line];
    });
    var mark = sv("g"), bestPath = sv("polyline", {fill: "none", stroke: "#2b8a3e", "stroke-width": 2.2, "stroke-linejoin": "round"});
    tree.appendChild(bestPath); tree.appendChild(mark);
    function bestUpTo(pos) { for (var q = pos; q >= 0; q--) if (E.k[q] === 2) return q; return -1; }
    function draw(pos) {
      var drawn = 0;
      exp.forEach(function (j) {
        var on = j <= pos, sh = shapes[j];
        sh[0].setAttribute("display", on ? "inline" : "none");
        if (sh[1]) sh[1].setAttribute("display", on ? "inline" : "none");
        if (on) drawn++;
      });
      clear(mark);
      var p = E.p[pos], b = bestUpTo(pos);
      // the incumbent as a path down the tree (through its expanded prefixes when drawn)
      var pts = [];
      if (b >= 0) for (var t = 0; t <= E.p[b].length; t++) {
        var jj = byKey[pkey(E.p[b].slice(0, t))];
        if (jj !== undefined && jj <= pos) pts.push(TX(jj).toFixed(1) + "," + TY(t));
      }
      bestPath.setAttribute("points", pts.join(" "));
      var parent = byKey[pkey(E.k[pos] === 0 ? p : p.slice(0, -1))];
      if (parent !== undefined) {
        var color = ["#f28e2b", "#e15759", "#2b8a3e"][E.k[pos]];
        var cx = TX(parent), cy = TY(E.k[pos] === 0 ? p.length : p.length - 1);
        mark.appendChild(sv("circle", {cx: cx, cy: cy, r: 7, fill: "none", stroke: color, "stroke-width": 2.5}));
        if (E.k[pos] !== 0) mark.appendChild(sv("line", {x1: cx, y1: cy, x2: cx, y2: cy + 30, stroke: color, "stroke-width": 2, "stroke-dasharray": E.k[pos] === 1 ? "3 2" : null}));
      }
      clear(now);
      add(now, [stat("event", E.i[pos], "replay-event-index"), stat("kind", KINDS[E.k[pos]], "replay-event-kind"),
                stat("tree size (prefixes expanded)", E.x[pos], "replay-tree-nodes", undefined, true),
                stat("dots drawn", drawn, "replay-tree-drawn"),
                stat(E.k[pos] === 0 ? "its lower bound" : E.k[pos] === 1 ? (R.reasons[E.r[pos]].indexOf("support") >= 0 ? "its support (share of N)" : "bound that failed") : "objective", E.v[pos], "replay-event-value", 6),
                b >= 0 ? stat("best so far", E.v[b], "replay-incumbent", 6) : null]);
      nowText.textContent = (E.k[pos] === 1 ? "Pruned by " + R.reasons[E.r[pos]] + ": " : E.k[pos] === 2 ? "New best list: " : "Expanded: ") + ptext(p);
    }
    slider.addEventListener("input", function () { draw(Number(slider.value)); });
    var step = function (delta, label, tid) {
      return el("button", {cls: "sm", type: "button", text: label, testid: tid, on: {click: function () {
        slider.value = String(Math.min(n - 1, Math.max(0, Number(slider.value) + delta))); draw(Number(slider.value)); }}});
    };
    var nextBest = el("button", {cls: "sm", type: "button", text: "next new best \u00bb", testid: "replay-next-best", on: {click: function () {
      for (var q = Number(slider.value) + 1; q < n; q++) if (E.k[q] === 2) { slider.value = String(q); draw(q); return; } }}});
    card.appendChild(el("h3", {text: "The prefix tree, growing"}));
    card.appendChild(el("p", {cls: "note", text: "Drag the slider through the events. Each dot is an expanded prefix (left to right in depth-first order, one row per number of rules); the ring marks the current event (orange: expansion, red: a child pruned below it, green: a new best list) and the green path is the best list so far."}));
    card.appendChild(el("div", {cls: "toolbar"}, step(-100, "\u00ab 100", "replay-back100"), step(-1, "\u2039 1", "replay-back"),
                        step(1, "1 \u203a", "replay-forward"), step(100, "100 \u00bb", "replay-forward100"), nextBest));
    card.appendChild(slider);
    card.appendChild(now);
    card.appendChild(nowText);
    card.appendChild(el("div", {cls: "scroll", style: "max-height:none"}, tree));
    card.appendChild(el("p", {cls: "note", text: "Table alternative: the event log below, filtered to the expansions, lists the same prefixes in the same order."}));
    // open at the first event, so stepping forward and "next new best" go through the search
    draw(0);

    // -- the event log: filter, sort --
    card.appendChild(el("h3", {text: "The event log"}));
    var kindSel = el("select", {"aria-label": "kind of event", testid: "replay-filter-kind"},
      el("option", {value: "", text: "all kinds"}), KINDS.map(function (k, i) { return el("option", {value: String(i), text: k}); }));
    var reasonSel = el("select", {"aria-label": "prune reason", testid: "replay-filter-reason"},
      el("option", {value: "", text: "all reasons"}), R.reasons.map(function (r, i) { return el("option", {value: String(i), text: r}); }));
    var textIn = el("input", {type: "search", placeholder: "filter prefixes", "aria-label": "filter prefixes", testid: "replay-filter-text"});
    var sortKey = "i", sortDir = 1, LIMIT = 400;
    var holder = el("div", {cls: "scroll"}), countLine = el("p", {cls: "note"});
    var ptexts = E.p.map(ptext);
    function drawLog() {
      var k = kindSel.value, r = reasonSel.value, q = textIn.value.toLowerCase();
      var idx = [];
      for (var t = 0; t < n; t++) {
        if (k !== "" && E.k[t] !== Number(k)) continue;
        if (r !== "" && E.r[t] !== Number(r)) continue;
        if (q && ptexts[t].toLowerCase().indexOf(q) < 0) continue;
        idx.push(t);
      }
      var col = {i: E.i, x: E.x, v: E.v}[sortKey];
      idx.sort(function (a, b) { return sortDir * ((col[a] === null ? Infinity : col[a]) - (col[b] === null ? Infinity : col[b])) || a - b; });
      clear(countLine);
      add(countLine, [num(idx.length, "replay-log-rows"), " events match", idx.length > LIMIT ? " (the first " + LIMIT + " are listed)" : "", "."]);
      clear(holder);
      var head = [["i", "event"], ["x", "expanded so far"], [null, "kind"], [null, "reason"], ["v", "value"], [null, "prefix"]];
      var t2 = table(head.map(function (h) { return h[1] + (h[0] === sortKey ? (sortDir > 0 ? " \u25b2" : " \u25bc") : ""); }),
        idx.slice(0, LIMIT).map(function (t) {
          return row([ntd(num(E.i[t], "replay-log-i-" + t)), ntd(num(E.x[t], "replay-log-x-" + t)), KINDS[E.k[t]], E.r[t] >= 0 ? el("code", {text: R.reasons[E.r[t]]}) : "",
                      ntd(num(E.v[t], "replay-log-v-" + t, 6)), el("span", {cls: "cond", text: ptexts[t]})], {"data-kind": String(E.k[t])});
        }), {numeric: [0, 1, 4], testid: "replay-log", label: "event log"});
      // sortable headers: the numeric columns
      Array.prototype.forEach.call(t2.querySelectorAll("th"), function (th, c) {
        var key = head[c][0];
        if (!key) return;
        th.style.cursor = "pointer";
        th.setAttribute("aria-sort", key === sortKey ? (sortDir > 0 ? "ascending" : "descending") : "none");
        th.addEventListener("click", function () { if (sortKey === key) sortDir = -sortDir; else { sortKey = key; sortDir = 1; } drawLog(); });
      });
      holder.appendChild(t2);
    }
    [kindSel, reasonSel].forEach(function (s2) { s2.addEventListener("change", drawLog); });
    textIn.addEventListener("input", drawLog);
    card.appendChild(el("div", {cls: "toolbar"}, kindSel, reasonSel, textIn, el("span", {cls: "muted", text: "click a numeric header to sort"})));
    card.appendChild(countLine);
    card.appendChild(holder);
    drawLog();
  }

  // ---- view: falling rule list -----------------------------------------------------------
  function frlView(sec) {
    var F = D.frl, m = D.model, pk = D.classes.indexOf(F.positive);
    sec.appendChild(el("div", {cls: "stats"}, stat("objective", F.final, "frl-objective", 6),
      stat("lower bound", F.lower_bound, "frl-lower-bound", 6), stat("iterations", F.n_iter, "frl-iterations"),
      stat("rules", m.rules.length, "frl-rules"), F.threshold !== null ? stat("threshold on p(" + F.positive + ")", F.threshold, "frl-threshold", 3) : null));
    sec.appendChild(el("p", {cls: "note", text: "A falling rule list states, for each rule, the probability of the positive class (" + F.positive +
      "); the probabilities fall down the list, so the first rules are the riskiest groups."}));
    var W = 520, rh = 26, H = (m.rules.length + 1) * rh + 10;
    var g = sv("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", style: "max-width:640px", role: "img", "aria-label": "probability of the positive class per rule"});
    var all = m.rules.concat([m["default"]]);
    all.forEach(function (r, k) {
      var p = r.probabilities ? r.probabilities[pk] : null, y = 5 + k * rh;
      g.appendChild(sv("text", {x: 0, y: y + 16, text: k < m.rules.length ? "rule " + (k + 1) : "else"}));
      g.appendChild(sv("rect", {x: 60, y: y + 4, width: W - 130, height: rh - 8, fill: "#eef1f6", rx: 3}));
      if (p !== null) {
        g.appendChild(sv("rect", {x: 60, y: y + 4, width: (W - 130) * p, height: rh - 8, fill: COLORS[1], rx: 3}));
        g.appendChild(sv("text", {x: W - 64, y: y + 16, text: p.toFixed(3)}));
      }
    });
    var trs = all.map(function (r, k) {
      var p = r.probabilities ? r.probabilities[pk] : null;
      return row([el("span", {cls: "kw", text: k === m.rules.length ? "else" : k ? "elif" : "if"}),
                  el("span", {cls: "cond", text: k < m.rules.length ? r.text : "(otherwise)"}), ntd(num(p, "frl-prob-" + k, 3)),
                  el("td", {cls: "n"}, r.counts.map(function (v, c) { return [c ? " / " : "", num(v, "frl-count-" + k + "-" + c)]; }))]);
    });
    var grid = el("div", {cls: "grid"});
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "The list and its falling probabilities"}), g,
      table(["", "antecedent", "p(" + F.positive + ")", "training counts (" + D.classes.join(" / ") + ")"], trs, {numeric: [2, 3], testid: "frl-table", label: "falling rule list"})));
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "The search's objective over iterations"}),
      lineChart([{name: "best so far", color: "#3b5bdb", points: F.iterations.map(function (x, i) { return [x, F.best[i]]; })},
                 {name: "list built in the iteration", color: "#adb5bd", points: F.iterations.map(function (x, i) { return [x, F.objective[i]]; }), line: false, dots: true, r: 1.6}],
                {label: "objective against iteration", xlabel: "iteration", xint: true}),
      F.sampled ? el("p", {cls: "note", text: "Showing " + F.iterations.length + " of " + F.n_iter + " iterations, evenly spaced."}) : null,
      el("p", {cls: F.lower_bound === null ? "warnbox" : "infobox", testid: "frl-bound-note", text: F.lower_bound === null ?
        "A Monte-Carlo search that stopped (" + F.status + ") without a lower bound: nothing is proved about how far this list is from the best." :
        "Status " + F.status + ": the search also keeps a lower bound (" + F.lower_bound.toFixed(6) + "), over " + F.scope + "."}),
      el("details", null, el("summary", {text: "table"}), el("div", {cls: "scroll"}, table(["iteration", "objective", "best so far"],
        F.iterations.map(function (x, i) { return row([ntd(num(x, "frl-iter-" + i)), ntd(num(F.objective[i], "frl-obj-" + i)), ntd(num(F.best[i], "frl-best-" + i))]); }),
        {numeric: [0, 1, 2], testid: "frl-trace-table"})))));
    sec.appendChild(grid);
  }

  // ---- view: column generation -----------------------------------------------------------
  function cgView(sec) {
    var m = D.model;
    D.cg.runs.forEach(function (r, ri) {
      var card = el("div", {cls: "card", style: "margin-bottom:14px"});
      card.appendChild(el("h2", {text: (r.member !== null ? "class " + r.member + ": " : "") + r.form.toUpperCase() + " rule set by column generation"}));
      card.appendChild(el("div", {cls: "stats"}, stat("objective (incumbent)", r.objective, "cg-objective-" + ri, 4),
        stat("lower bound", r.lower_bound, "cg-lower-bound-" + ri, 4), stat("LP value", r.lp_value, "cg-lp-" + ri, 4),
        stat("columns generated", r.n_columns, "cg-columns-" + ri), stat("complexity", r.complexity, "cg-complexity-" + ri)));
      card.appendChild(el("p", {testid: "cg-certificate-" + ri, text: "Certificate, per row: " + r.summary + ". Below, the engine's counts (weighted mistakes)."}));
      card.appendChild(el("p", {cls: r.lower_bound === null ? "warnbox" : "infobox", testid: "cg-bound-note-" + ri, text: r.lower_bound === null ?
        "No lower bound: pricing was sampled, so nothing is proved about how far this rule set is from the best." :
        r.lp_proven ? "The LP was solved over all clauses (pricing proved no better clause exists): the bound is certified. Status: " + r.status + "." :
        "The LP value is not a bound here: pricing did not prove that no better clause exists (the exact enumeration stopped at its work limit), so the bound is the best one the rounds with exact (or cut-short exact) pricing proved; rounds with heuristic pricing prove nothing. Status: " + r.status + "."}));
      var its = r.iterations;
      var exactPts = its.map(function (t) { return [t.iteration, t.exact ? t.bound : null]; });
      card.appendChild(lineChart([
        {name: "restricted master LP value", color: "#3b5bdb", points: its.map(function (t) { return [t.iteration, t.rmlp]; }), dots: true},
        {name: "lower bound (certified: exact pricing that round)", color: "#2b8a3e", points: exactPts, dots: true, line: false, r: 4}],
        {label: "LP value and lower bound per iteration", xlabel: "iteration", xint: true,
         hlines: [{y: r.objective, name: "incumbent (final rule set)", color: "#e8590c"}].concat(
           r.lower_bound === null ? [] : [{y: r.lower_bound, name: "final lower bound", color: "#2b8a3e"}])}));
      card.appendChild(el("details", null, el("summary", {text: "table"}), el("div", {cls: "scroll"}, table(["iteration", "LP value", "bound", "pricing", "certified", "added"],
        its.map(function (t, i) {
          return row([ntd(num(t.iteration, "cg-iter-" + ri + "-" + i)), ntd(num(t.rmlp, "cg-rmlp-" + ri + "-" + i, 4)), ntd(num(t.bound, "cg-bound-" + ri + "-" + i, 4)),
                      el("code", {text: t.pricing}), el("span", {testid: "cg-exact-" + ri + "-" + i, value: t.exact, text: t.exact ? "yes" : "no"}), ntd(num(t.n_added, "cg-added-" + ri + "-" + i))]);
        }), {numeric: [0, 1, 2, 5], testid: "cg-table-" + ri}))));
      sec.appendChild(card);
    });
    var sets = m.type === "RuleSet" ? [m] : m.type === "OneVsRestRuleSets" ? m.members : [];
    if (m.type === "OneVsRestRuleSets") sec.appendChild(decisionList(m));
    sets.forEach(function (rs, si) {
      var joiner = rs.form === "dnf" ? "OR" : "AND", id = sets.length > 1 ? si + "-" : "";
      var title = sets.length > 1 ? "Class " + m.classes[si] + "'s rule set (" + rs.form.toUpperCase() + ")" :
        "The clauses (" + rs.form.toUpperCase() + ": predict " + rs.positive + " when the formula holds)";
      sec.appendChild(el("div", {cls: "card", style: "margin-bottom:14px"}, el("h2", {text: title}),
        rs.clauses.length ? table(["", "clause"], rs.clauses.map(function (cl, k) {
          return row([el("span", {cls: "kw", text: k ? joiner : ""}), el("span", {cls: "cond", testid: "cg-clause-" + id + k, text: "(" + cl.text + ")"})]);
        }), {testid: "cg-clauses-" + si}) : el("p", {cls: "note", text: rs.form === "dnf" ? "No clause: the formula is false on every row." : "No clause: the formula is true on every row."})));
    });
  }

  // one-vs-rest rule sets read as the decision list the model prints and predict follows
  function decisionList(m) {
    var trs = [];
    m.steps.forEach(function (st, i) {
      var rs = m.members[st.member], joiner = rs.form === "dnf" ? "OR" : "AND";
      rs.clauses.forEach(function (cl, k) {
        var text = "(" + cl.text + ")";
        if (!st.holds) text = (k ? "" : "[") + text + (k === rs.clauses.length - 1 ? "]" : "");
        trs.push(row([el("span", {cls: "kw", text: k ? joiner : (i ? "ELSE IF" : "IF") + (st.holds ? "" : " NOT")}),
                      el("span", {cls: "cond", testid: "cg-step-" + i + "-clause-" + k, text: text}), el("td"), el("td")]));
      });
      trs.push(row([el("span", {cls: "kw", text: "THEN"}), el("td"), el("span", {testid: "cg-step-" + i + "-class", text: m.classes[st.member]}),
                    ntd(num(st.score, "cg-step-" + i + "-score", 3))]));
    });
    trs.push(row([el("span", {cls: "kw", text: m.steps.length ? "ELSE" : "always"}), el("td"),
                  el("span", {testid: "cg-default-class", text: m.classes[m.default]}), el("td")]));
    var scores = m.members.map(function (rs, k) {
      return row([el("span", {text: m.classes[k]}), ntd(num(rs.proba_true, "cg-score-true-" + k, 3)), ntd(num(rs.proba_false, "cg-score-false-" + k, 3))]);
    });
    return el("div", {cls: "card", style: "margin-bottom:14px", testid: "cg-decision-list"},
      el("h2", {text: "How the rule sets decide together: a decision list"}),
      el("p", {cls: "note", text: "Go down the list: the first test that is true of a row gives its class. NOT [...] is true where the rule set in brackets is false."}),
      table(["", "clause", "prediction", "score"], trs, {numeric: [3], testid: "cg-steps"}),
      el("p", {cls: "note", text: "A class's score is its rule set's training rate of the class where the set holds, or where it does not. The list tries the scores from highest to lowest (the earlier class on ties), so a row gets the class with the highest score; predict_proba divides each class's score by the sum of the scores."}),
      table(["class", "score where its rule set holds", "where it does not"], scores, {numeric: [1, 2], testid: "cg-scores"}));
  }

  // ---- view: Rashomon set ------------------------------------------------------------------
  // each feature's importance (share of rows decided by a rule testing it) as a range over the lists
  function featureRanges(S) {
    var F = S.feature_importance, rowH = 22, L = 150, W = 460, H = 28 + F.length * rowH;
    var X = function (v) { return L + v * (W - L - 20); };
    var g = sv("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", role: "img", "aria-label": "importance range of each feature across the good lists"});
    [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
      g.appendChild(sv("line", {cls: "axis", x1: X(t), y1: 4, x2: X(t), y2: H - 18, "stroke-opacity": 0.25}));
      g.appendChild(sv("text", {x: X(t), y: H - 4, "text-anchor": "middle", text: Math.round(100 * t) + "%"}));
    });
    F.forEach(function (r, k) {
      var y = 10 + k * rowH;
      g.appendChild(sv("text", {x: L - 8, y: y + 5, "text-anchor": "end", text: r.feature.length > 22 ? r.feature.slice(0, 21) + "…" : r.feature}));
      g.appendChild(sv("rect", {x: X(r.min), y: y - 5, width: Math.max(2, X(r.max) - X(r.min)), height: 10, rx: 3, fill: COLORS[0], "fill-opacity": 0.35},
                       sv("title", {text: r.feature + ": " + (100 * r.min).toFixed(1) + "% to " + (100 * r.max).toFixed(1) + "% of rows"})));
      g.appendChild(sv("line", {x1: X(r.mean), y1: y - 7, x2: X(r.mean), y2: y + 7, stroke: COLORS[0], "stroke-width": 2}));
    });
    return el("div", {cls: "card"}, el("h2", {text: "Each feature's importance across the good lists"}),
      el("p", {cls: "note", text: "Share of the rows whose prediction a rule testing the feature makes, in each list: the bar runs from the least to the most any good list gives it, the tick is the mean. A bar that starts above 0% is a feature every good list needs; one that starts at 0% can be done without."}),
      g, el("details", null, el("summary", {text: "table"}), el("div", {cls: "scroll"}, table(["feature", "min", "mean", "max", "share of lists"], F.map(function (r, k) {
        return row([el("span", {cls: "cond", testid: "rset-fimp-name-" + k, text: r.feature}), ntd(num(r.min, "rset-fimp-min-" + k, 3)),
          ntd(num(r.mean, "rset-fimp-mean-" + k, 3)), ntd(num(r.max, "rset-fimp-max-" + k, 3)), ntd(num(r.lists, "rset-fimp-lists-" + k, 3))]);
      }), {numeric: [1, 2, 3, 4], testid: "rset-feature-importance"}))));
  }

  function rashomonView(sec) {
    var S = D.rashomon;
    var partial = S.lists_shown < S.count, countText = fmt(S.count) + (S.complete ? "" : " or more");
    sec.appendChild(el("div", {cls: "stats"}, stat(S.complete ? "lists within ε" : "lists within ε (at least)", S.count, "rset-count"),
      stat("lists on this page", S.lists_shown, "rset-shown", undefined, partial), stat("ε", S.epsilon, "rset-epsilon", 4),
      stat("optimum", S.optimum, "rset-optimum", 6), stat("rows the lists disagree on", S.ambiguous, "rset-ambiguous")));
    if (partial) sec.appendChild(el("p", {cls: "infobox", testid: "rset-shown-note", text: "There are " + countText + " lists within ε; the page " +
      "carries the " + fmt(S.lists_shown) + " best of them (the lowest objectives). The histogram of objectives, the condition and " +
      "feature shares and the per-row agreement count all " + countText + "; the filters count among the " + fmt(S.lists_shown) + " on the page."}));
    sec.appendChild(el("p", {cls: "note", testid: "rset-complete", value: S.complete, text: (S.complete ? "Every list within ε of the optimum: " :
      "The enumeration stopped (" + S.status + "); these are some of the lists: ") + S.scope}));
    var grid = el("div", {cls: "grid"});
    // filter by a condition used and by objective
    var conds = {};
    S.list_conditions.forEach(function (cs) { cs.forEach(function (j) { conds[j] = true; }); });
    var sel = el("select", {testid: "rset-condition", "aria-label": "condition used"}, el("option", {value: "-1", text: "any condition"}),
      Object.keys(conds).map(Number).sort(function (a, b) { return a - b; }).map(function (j) { return el("option", {value: String(j), text: D.conditions[j].text}); }));
    var fsel = el("select", {testid: "rset-feature", "aria-label": "feature used"}, el("option", {value: "-1", text: "any feature"}),
      S.feature_importance.map(function (r) { var f = S.features.indexOf(r.feature); return el("option", {value: String(f), text: r.feature}); }));
    var maxObj = S.objectives.length ? S.objectives[S.objectives.length - 1] : 0;
    var range = el("input", {type: "range", min: 0, max: 1000, value: 1000, testid: "rset-objective", "aria-label": "largest objective"});
    var out = el("div");
    function drawFilter() {
      var j = parseInt(sel.value, 10), f = parseInt(fsel.value, 10), n = 0;
      var lim = S.optimum + (maxObj - S.optimum) * range.value / 1000 + 1e-15;
      S.list_conditions.forEach(function (cs, i) {
        if (S.objectives[i] <= lim && (j < 0 || cs.indexOf(j) >= 0) && (f < 0 || S.list_features[i].indexOf(f) >= 0)) n++;
      });
      var what = [j >= 0 ? "this condition" : "", f >= 0 ? "feature " + S.features[f] : ""].filter(Boolean).join(" and ");
      clear(out);
      out.appendChild(el("p", null, num(n, "rset-filtered"), " of the " + fmt(S.lists_shown) + (partial ? " lists on this page (of " + countText + ")" : " lists"),
        what ? " use " + what : "", " with objective ≤ ", num(lim, "rset-limit", 6)));
    }
    sel.addEventListener("change", drawFilter); fsel.addEventListener("change", drawFilter); range.addEventListener("input", drawFilter);
    // the histogram counts every list of the set (binned in Python), the page's lists darker
    var Hg = S.histogram, bins = Hg.all.length, W = 420, H = 170, L = 34, Bt = 34;
    var top = Math.max.apply(null, Hg.all.concat([1]));
    var g = sv("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", role: "img", testid: "rset-hist",
                       "aria-label": "histogram of the objectives of all " + countText + " lists"});
    var bw = (W - L - 10) / Math.max(bins, 1);
    Hg.all.forEach(function (v, b) {
      var h = (H - Bt - 8) * v / top, hs = (H - Bt - 8) * Hg.shown[b] / top;
      g.appendChild(sv("rect", {x: L + b * bw, y: H - Bt - h, width: bw - 2, height: h, fill: COLORS[0], "fill-opacity": partial ? 0.35 : 1},
                       sv("title", {text: fmt(v) + " lists from " + fmt(Hg.edges[b], 5)})));
      if (partial && hs > 0) g.appendChild(sv("rect", {x: L + b * bw, y: H - Bt - hs, width: bw - 2, height: hs, fill: COLORS[0]}));
    });
    g.appendChild(sv("line", {cls: "axis", x1: L, y1: H - Bt, x2: W - 8, y2: H - Bt}));
    g.appendChild(sv("text", {x: L - 4, y: 12, "text-anchor": "end", text: fmt(top)}));
    g.appendChild(sv("text", {x: L - 4, y: H - Bt, "text-anchor": "end", text: "0"}));
    if (bins) {
      g.appendChild(sv("text", {x: L, y: H - Bt + 14, text: Hg.edges[0].toFixed(4)}));
      g.appendChild(sv("text", {x: W - 10, y: H - Bt + 14, "text-anchor": "end", text: Hg.edges[bins].toFixed(4)}));
    }
    g.appendChild(sv("text", {x: (L + W) / 2, y: H - 4, "text-anchor": "middle", text: "objective (lists per bin)"}));
    var hlegend = partial ? el("div", {cls: "legend"}, el("span", null, el("i", {style: "background:" + COLORS[0] + ";opacity:.35"}), "all " + countText + " lists"),
      el("span", null, el("i", {style: "background:" + COLORS[0]}), "the " + fmt(S.lists_shown) + " on this page")) : null;
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "Objectives of the good lists"}), g, hlegend,
      el("div", {cls: "toolbar"}, fsel, sel, el("label", null, "objective ", range)), out,
      el("details", null, el("summary", {text: "table"}), table(["from", "to", "lists", "on this page"], Hg.all.map(function (v, b) {
        return row([ntd(num(Hg.edges[b], "rset-bin-" + b, 5)), ntd(num(Hg.edges[b + 1], "rset-bin-to-" + b, 5)), ntd(num(v, "rset-hist-" + b)),
                    ntd(num(Hg.shown[b], "rset-hist-shown-" + b))]);
      }), {numeric: [0, 1, 2, 3], testid: "rset-hist-table"}))));
    grid.appendChild(featureRanges(S));
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "How many good lists use each condition"}),
      el("div", {cls: "scroll"}, table(["condition", "share of lists", ""], S.importance.map(function (r, k) {
        return row([el("span", {cls: "cond", text: r.condition}), ntd(num(r.share, "rset-imp-" + k, 3)),
          el("td", null, el("span", {cls: "barwrap", "aria-hidden": "true"}, el("span", {cls: "bar", style: "width:" + (100 * r.share).toFixed(1) + "%"})))]);
      }), {numeric: [1], testid: "rset-importance"}))));
    grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "Per-row agreement"}),
      el("p", {cls: "note", text: "For each row, the share of lists that predict its most predicted class: 1 means all good lists agree."}),
      table(["agreement", "rows"], S.agreement_hist.map(function (v, b) {
        return row([el("span", {text: (b / 10).toFixed(1) + "–" + ((b + 1) / 10).toFixed(1)}), ntd(num(v, "rset-agree-" + b))]);
      }), {numeric: [1], testid: "rset-agreement"})));
    // pairwise disagreement of the best lists: the share of rows two lists predict differently
    var P = S.pairs, k = P.length;
    if (k > 1) {
      var cell = 18, off = 34, HW = off + k * cell + 4, top2 = 0;
      P.forEach(function (r) { r.forEach(function (v) { top2 = Math.max(top2, v); }); });
      var hm = sv("svg", {viewBox: "0 0 " + HW + " " + HW, width: "100%", style: "max-width:" + Math.max(260, HW * 1.2) + "px", role: "img",
                          "aria-label": "share of rows on which two of the best lists disagree"});
      for (var i = 0; i < k; i++) {
        hm.appendChild(sv("text", {x: off - 4, y: off + i * cell + 13, "text-anchor": "end", text: "#" + (i + 1)}));
        hm.appendChild(sv("text", {x: off + i * cell + cell / 2, y: off - 6, "text-anchor": "middle", text: String(i + 1)}));
        for (var j = 0; j < k; j++) {
          var v = P[i][j];
          hm.appendChild(sv("rect", {x: off + j * cell, y: off + i * cell, width: cell - 1, height: cell - 1, fill: "#e15759",
                                     "fill-opacity": top2 ? (0.08 + 0.92 * v / top2).toFixed(3) : 0.05},
                            sv("title", {text: "lists " + (i + 1) + " and " + (j + 1) + ": " + (100 * v).toFixed(2) + "% of rows"})));
        }
      }
      // the colour scale: the cells' opacity runs from 0.08 (no row differs) to 1 (the pair that differs most)
      var SW = 300, steps = 24, scale = sv("svg", {viewBox: "0 0 " + SW + " 52", width: "100%", style: "max-width:" + SW * 1.2 + "px", role: "img",
        testid: "rset-pair-scale", "data-value": top2, "aria-label": "colour scale of the disagreement map: from 0% to " + (100 * top2).toFixed(2) + "% of rows"});
      for (var st = 0; st < steps; st++) {
        scale.appendChild(sv("rect", {x: 10 + st * (SW - 20) / steps, y: 4, width: (SW - 20) / steps + 0.5, height: 14, fill: "#e15759",
                                      "fill-opacity": top2 ? (0.08 + 0.92 * (st + 0.5) / steps).toFixed(3) : 0.05}));
      }
      [0, 0.5, 1].forEach(function (t) {
        scale.appendChild(sv("line", {x1: 10 + t * (SW - 20), x2: 10 + t * (SW - 20), y1: 18, y2: 23, stroke: "#868e96"}));
        scale.appendChild(sv("text", {x: 10 + t * (SW - 20), y: 34, "text-anchor": t === 0 ? "start" : t === 1 ? "end" : "middle",
                                      testid: "rset-pair-scale-" + ["min", "mid", "max"][t * 2], "data-value": t * top2,
                                      text: (t ? (100 * t * top2).toFixed(t * top2 >= 0.1 ? 0 : 1) : "0") + "% of rows"}));
      });
      scale.appendChild(sv("text", {x: SW / 2, y: 47, "text-anchor": "middle", text: "share of rows on which the two lists predict differently"}));
      var mean = 0, cnt = 0;
      for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) { mean += P[i][j]; cnt++; }
      grid.appendChild(el("div", {cls: "card"}, el("h2", {text: "How much the best lists disagree"}),
        el("p", {cls: "note"}, "The " + k + " best lists, pairwise: the share of rows on which two of them predict differently. On average ",
           num(mean / cnt, "rset-pair-mean", 4), "."), hm, scale,
        el("details", null, el("summary", {text: "table"}), el("div", {cls: "scroll"}, table([""].concat(P.map(function (_, j) { return "#" + (j + 1); })),
          P.map(function (r, i) { return row([el("b", {text: "#" + (i + 1)})].concat(r.map(function (v, j) { return ntd(num(v, "rset-pair-" + i + "-" + j, 3)); }))); }),
          {testid: "rset-pairs"})))));
    }
    sec.appendChild(grid);
    drawFilter();
  }

  // ---- view: compare -----------------------------------------------------------------------
  function compareView(sec) {
    var Cm = D.compare, s = Cm.scoring[0], models = Cm.models;
    var W = 640, H = 300, L = 56, R = 180, T = 12, B = 36;
    var sized = models.filter(function (m) { return m.n_conditions !== null && m.scores[s].mean !== null; });
    var xs = sized.map(function (m) { return m.n_conditions; }), ys = models.map(function (m) { return m.scores[s].mean; }).filter(function (v) { return v !== null; });
    var logx = xs.length && Math.max.apply(null, xs) > 50 * Math.max(1, Math.min.apply(null, xs));
    var tx = function (v) { return logx ? Math.log10(1 + v) : v; };
    var x1 = Math.max.apply(null, xs.map(tx).concat([1])) * 1.08, y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var pad = (y1 - y0) * 0.15 || 0.01; y0 -= pad; y1 += pad;
    var X = function (v) { return L + tx(v) / x1 * (W - L - R); }, Y = function (v) { return T + (1 - (v - y0) / (y1 - y0)) * (H - T - B); };
    var g = sv("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", style: "max-width:860px", role: "img", "aria-label": s + " against conditions in the model"});
    g.appendChild(sv("line", {cls: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B}));
    g.appendChild(sv("line", {cls: "axis", x1: L, y1: T, x2: L, y2: H - B}));
    for (var t = 0; t <= 4; t++) {
      var yv = y0 + (y1 - y0) * t / 4;
      g.appendChild(sv("text", {x: L - 6, y: Y(yv) + 4, "text-anchor": "end", text: yv.toPrecision(4)}));
      var tv = x1 * t / 4, xv = logx ? Math.pow(10, tv) - 1 : tv;
      g.appendChild(sv("text", {x: L + tv / x1 * (W - L - R), y: H - B + 16, "text-anchor": "middle", text: xv < 10 ? xv.toFixed(1) : Math.round(xv).toLocaleString("en-US")}));
    }
    g.appendChild(sv("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", text: "conditions in the model" + (logx ? " (log scale)" : "")}));
    var front = sized.filter(function (m) { return m.pareto; }).sort(function (a, b) { return a.n_conditions - b.n_conditions; });
    if (front.length > 1) g.appendChild(sv("polyline", {fill: "none", stroke: "#343a40", "stroke-opacity": 0.5, points: front.map(function (m) { return X(m.n_conditions) + "," + Y(m.scores[s].mean); }).join(" ")}));
    models.forEach(function (m, k) {
      var v = m.scores[s].mean, color = COLORS[k % COLORS.length];
      if (v === null) return;
      if (m.n_conditions === null) {
        g.appendChild(sv("line", {x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: color, "stroke-dasharray": "3 3"}));
      } else {
        if (m.pareto) g.appendChild(sv("circle", {cx: X(m.n_conditions), cy: Y(v), r: 9, fill: "none", stroke: "#343a40"}));
        g.appendChild(sv("circle", {cx: X(m.n_conditions), cy: Y(v), r: 5, fill: color}));
      }
      g.appendChild(sv("text", {x: W - R + 10, y: T + 14 + k * 16, style: "fill:" + color, text: "● " + m.name}));
    });
    var trs = models.map(function (m, k) {
      return row([el("span", {testid: "cmp-name-" + k, text: m.name + (m.pareto ? " ★" : "")}), ntd(num(m.scores[s].mean, "cmp-score-" + k, 4)),
        ntd(num(m.scores[s].se, "cmp-se-" + k, 4)), ntd(num(m.n_rules, "cmp-rules-" + k, 1)), ntd(num(m.n_conditions, "cmp-conds-" + k, 1)),
        ntd(num(m.fit_time, "cmp-time-" + k, 2)), el("span", {cls: "muted", text: m.certificate || ""})]);
    });
    sec.appendChild(el("div", {cls: "card"}, el("h2", {text: s + " against size (cross-validated)"}), g,
      el("p", {cls: "note", text: "Ringed: the Pareto front (no other model is both at least as accurate and at least as small). Dashed lines: models without a rule size."}),
      table(["model", s, "± se", "rules", "conditions", "fit s", "certificate"], trs, {numeric: [1, 2, 3, 4, 5], testid: "compare-table"})));
  }

  // ---- assemble ------------------------------------------------------------------------------
  var sub = [];
  if (D.learner === "Comparison") {
    addView("compare", "Compare", compareView);
    sub.push(D.compare.models.length + " models");
  } else {
    addView("data", "Data → conditions", dataView);
    if (D.corels && D.pool && D.pool.length) addView("edit", "Edit a rule list", editView);
    if (D.corels) addView("search", "Search & certificate", searchView);
    if (D.frl) addView("frl", "Falling rule list", frlView);
    if (D.cg) addView("cg", "Column generation", cgView);
    if (D.rashomon) addView("rashomon", "Rashomon set", rashomonView);
    sub.push(D.n.toLocaleString("en-US") + " rows", D.conditions.length + " conditions");
    var cert = D.certificate;
    var badge = el("span", {cls: "pill " + (cert.status === "optimal" ? "c2" : "c1"), testid: "cert-status", value: cert.status, text: cert.status});
    document.getElementById("badge").appendChild(badge);
  }
  document.getElementById("subtitle").textContent = sub.join(" · ");
  VIEWS.forEach(function (v, i) {
    v.tab = el("button", {role: "tab", id: "tab-" + v.id, testid: "tab-" + v.id, "aria-controls": "view-" + v.id, text: v.label,
                          on: {click: function () { showView(v.id); }}});
    tabs.appendChild(v.tab);
    v.section = el("section", {cls: "view", id: "view-" + v.id, role: "tabpanel", "aria-labelledby": "tab-" + v.id, testid: "view-" + v.id});
    views.appendChild(v.section);
    v.build(v.section);
  });
  // arrow keys move between tabs (the WAI-ARIA tabs pattern)
  tabs.addEventListener("keydown", function (e) {
    var i = VIEWS.findIndex(function (v) { return v.tab === document.activeElement; });
    if (i < 0 || (e.key !== "ArrowRight" && e.key !== "ArrowLeft")) return;
    var next = VIEWS[(i + (e.key === "ArrowRight" ? 1 : VIEWS.length - 1)) % VIEWS.length];
    showView(next.id); next.tab.focus(); e.preventDefault();
  });
  if (VIEWS.length) showView(VIEWS[0].id);
  document.body.setAttribute("data-ready", "true");
})();
