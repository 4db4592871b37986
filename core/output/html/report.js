// The report's script: reads the JSON block #report-data (docs/report.md)
// and draws each chart with Chart.js. Sizes arrive in bytes and times in
// seconds; they become GiB, seconds and milliseconds here, at the edge, and
// every axis names its unit. When it is done it records on <html> what a
// test checks: data-report-ready, data-report-errors (JSON), data-report-charts
// (each drawn chart's box, JSON) and data-report-height.
(function() {
'use strict';
var GIB = 1024 * 1024 * 1024;
// One colour per name, the same in every chart (Tableau 10, then greys).
var PALETTE = [
  '#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f',
  '#bab0ac', '#6b6b6b', '#2f4b7c'
];
var started = performance.now();
var data = JSON.parse(document.getElementById('report-data').textContent);
// The names of the strategy's keys, the step's parts and a stage's memory
// terms come with the data, from the tables the JSON is written from.
var STRATEGY_KEYS = data.vocabulary.strategy_keys;
var PARTS = data.vocabulary.parts;
var MEMORY_TERMS = data.vocabulary.memory_terms;  // a stage's keys: "params_bytes", ...
var drawn = [];

function colour(i) { return PALETTE[i % PALETTE.length]; }
// A part of the step has one colour in every chart: the timeline's pp slices
// are the exposed sends, its step overhead the overhead part.
function partColour(name) {
  var i = PARTS.indexOf(name === 'step overhead' ? 'overhead' : name);
  return colour(i < 0 ? PARTS.length : i);
}
function el(tag, text, cls) {
  var e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function gib(bytes) { return bytes / GIB; }
function fixed(x, digits) { return Number(x).toFixed(digits); }
function strategyText(s) {
  return STRATEGY_KEYS.filter(function(k) { return s[k] !== undefined; })
      .map(function(k) { return k + '=' + s[k]; })
      .join(',');
}
// A chart's section says in words why it has no chart, in place of the canvas.
function noChart(id, why) {
  var canvas = document.getElementById(id);
  var box = canvas.parentNode;
  box.replaceChild(el('p', why, 'none'), canvas);
  box.style.height = 'auto';
}
function chart(id, config) {
  config.options = config.options || {};
  config.options.animation = false;  // drawn at once: what a screenshot sees is the chart
  config.options.responsive = true;
  config.options.maintainAspectRatio = false;
  new Chart(document.getElementById(id), config);
  drawn.push(id);
}
function axis(title, extra) {
  var a = {title: {display: true, text: title}};
  for (var k in extra) a[k] = extra[k];
  return a;
}

// ---- Header, counts and the table ----
var doc = data.kind === 'search' ? data.search : data.explain;
var rows = data.kind === 'search' ? doc.ranking : [doc];
var devices = doc.devices;
var header = document.getElementById('header-lines');
(data.header || []).forEach(function(line) { header.appendChild(el('li', line)); });
if (data.generator) document.getElementById('generator').textContent = data.generator;

function peakOf(row) { return row.memory.peak_bytes; }
function largestPart(row) {
  if (!row.time) return null;
  var best = null;
  PARTS.forEach(function(p) {
    var v = row.time.parts[p] || 0;
    if (best === null || v > row.time.parts[best]) best = p;
  });
  return best === null ? '' :
                         best + ' ' + fixed(100 * row.time.parts[best] / row.time.step_s, 0) + ' %';
}
// An explain report's row has the rank of its search, when one ran and ranked it.
function rankOf(r, i) {
  if (data.kind === 'search') return r.rank || i + 1;
  return r.search && r.search.rank ? r.search.rank : null;
}
var columns = [{name: 'rank', text: false, value: rankOf}];
STRATEGY_KEYS.forEach(function(k) {
  columns.push({
    name: k,
    text: k === 'recompute' || k === 'schedule',
    value: function(r) { return k === 'recompute' ? r.recompute : r.strategy[k]; }
  });
});
columns.push({name: 'step s', value: function(r) { return r.time.step_s; }, digits: 3});
columns.push({name: 'MFU %', value: function(r) { return 100 * r.mfu; }, digits: 1});
columns.push({
  name: 'tokens/s per device',
  value: function(r) { return r.tokens_per_s / devices; },
  digits: 0
});
columns.push({name: 'peak GiB', value: function(r) { return gib(peakOf(r)); }, digits: 2});
columns.push({name: 'largest part of the step', text: true, value: largestPart});

function fillTable() {
  var table = document.getElementById('ranking');
  var headRow = el('tr');
  columns.forEach(function(c, ci) {
    var th = el('th', c.name, c.text ? 'text' : '');
    th.addEventListener('click', function() { sortBy(ci, th); });
    headRow.appendChild(th);
  });
  table.tHead.appendChild(headRow);
  rows.forEach(function(r, i) {
    var tr = el('tr');
    columns.forEach(function(c) {
      // A refused strategy (explain) has no time or peak: its cells read "-".
      var v = null;
      if (r.time || !c.digits) v = c.value(r, i);
      var known = v !== null && v !== undefined && !(typeof v === 'number' && isNaN(v));
      var shown = !known ? '-' : c.digits !== undefined ? fixed(v, c.digits) : String(v);
      var td = el('td', shown, c.text ? 'text' : '');
      td.dataset.value = known ? String(v) : '';
      tr.appendChild(td);
    });
    table.tBodies[0].appendChild(tr);
  });
}
var sorted = {column: -1, up: true};
function sortBy(ci, th) {
  var body = document.getElementById('ranking').tBodies[0];
  sorted.up = sorted.column === ci ? !sorted.up : true;
  sorted.column = ci;
  var trs = Array.prototype.slice.call(body.rows);
  var text = columns[ci].text;
  trs.sort(function(a, b) {
    var x = a.cells[ci].dataset.value, y = b.cells[ci].dataset.value;
    var order = text ? x.localeCompare(y) : Number(x) - Number(y);
    return sorted.up ? order : -order;
  });
  trs.forEach(function(tr) { body.appendChild(tr); });
  Array.prototype.forEach.call(
      th.parentNode.cells, function(c) { c.className = columns[c.cellIndex].text ? 'text' : ''; });
  th.className += (sorted.up ? ' sorted-up' : ' sorted-down');
}

function fillCounts() {
  var p = document.getElementById('counts');
  if (data.kind !== 'search') {
    p.textContent = doc.valid ? '' : 'refused: ' + (doc.refusal ? doc.refusal.reason : '');
    return;
  }
  var c = doc.counts, refused = 0;
  for (var id in c.refused) refused += c.refused[id];
  p.textContent = 'tested ' + c.tested + ', refused ' + refused + ', priced ' + c.priced +
      ', fit ' + c.fit + ', dropped ' + c.dropped + ' (over the budget of ' +
      fixed(gib(doc.budget_bytes), 2) + ' GiB)' + (c.outpaced ? ', outpaced ' + c.outpaced : '') +
      '; ' + doc.ranking.length + ' listed';
}

function fillChecks() {
  if (data.kind !== 'explain') return;
  document.getElementById('section-checks').hidden = false;
  document.getElementById('ranking-title').textContent = 'The strategy';
  var list = document.getElementById('checks');
  (doc.checks || []).forEach(function(c) {
    list.appendChild(el(
        'li', (c.passed ? 'pass ' : 'FAIL ') + c.id + ': ' + c.message, c.passed ? '' : 'failed'));
  });
}

// ---- Charts ----
function drawParts() {
  var listed = rows.filter(function(r) { return r.time && r.time.step_s > 0; });
  if (listed.length === 0)
    return noChart(
        'chart-parts',
        data.kind === 'search' ? 'No strategy fits the budget.' :
                                 'The strategy was not priced: a check refused it.');
  var labels = listed.map(function(
      r, i) { return data.kind === 'search' ? 'rank ' + (r.rank || i + 1) : 'the strategy'; });
  var datasets = PARTS
                     .map(function(p) {
                       return {
                         label: p,
                         backgroundColor: partColour(p),
                         data: listed.map(function(r) { return r.time.parts[p] || 0; })
                       };
                     })
                     .filter(function(d) { return d.data.some(function(v) { return v > 0; }); });
  chart('chart-parts', {
    type: 'bar',
    data: {labels: labels, datasets: datasets},
    options: {
      scales: {x: {stacked: true}, y: axis('seconds per step', {stacked: true})},
      plugins: {
        tooltip: {
          callbacks: {
            footer: function(items) {
              var r = listed[items[0].dataIndex];
              return strategyText(r.strategy) + '\nstep ' + fixed(r.time.step_s, 3) + ' s';
            }
          }
        }
      }
    }
  });
}

function drawMemory() {
  var best = rows[0];
  var stages = best && best.memory && Array.isArray(best.memory.stages) ? best.memory.stages : [];
  if (stages.length === 0)
    return noChart(
        'chart-memory',
        data.kind === 'search' ? 'No strategy fits the budget: there are no stages to draw.' :
                                 'The strategy was not priced: a check refused it.');
  var budget = data.kind === 'search' ? doc.budget_bytes : doc.memory.budget_bytes;
  document.getElementById('memory-help').textContent = 'The ' +
      (data.kind === 'search' ? 'best strategy\'s' : 'strategy\'s') +
      ' bytes on each pipeline stage by memory term (' + strategyText(best.strategy) +
      '), against the budget of ' + fixed(gib(budget), 2) + ' GiB per device.';
  var labels =
      stages.map(function(s) { return 'stage ' + s.stage + ' (' + s.layers + ' layers)'; });
  var datasets = MEMORY_TERMS.map(function(t, i) {
    return {
      type: 'bar',
      label: t.replace(/_bytes$/, '').replace('_', ' '),
      backgroundColor: colour(i),
      stack: 'memory',
      data: stages.map(function(s) { return gib(s[t] || 0); })
    };
  });
  datasets.push({
    type: 'line',
    label: 'budget',
    borderColor: '#b3261e',
    borderDash: [6, 4],
    pointRadius: 0,
    borderWidth: 2,
    data: stages.map(function() { return gib(budget); })
  });
  chart('chart-memory', {
    type: 'bar',
    data: {labels: labels, datasets: datasets},
    options: {
      scales: {x: {stacked: true}, y: axis('GiB per device', {stacked: true, beginAtZero: true})}
    }
  });
}

function drawPareto() {
  if (data.kind !== 'search')
    return noChart(
        'chart-pareto',
        'A search\'s report draws every fitting strategy here; this report is of one strategy.');
  var sample = data.sample || {points: [], fits: 0, stride: 1};
  if (sample.points.length === 0) return noChart('chart-pareto', 'No strategy fits the budget.');
  document.getElementById('pareto-help').textContent =
      (sample.stride > 1 ? 'A sample of the ' + sample.fits + ' fitting strategies: every ' +
               sample.stride + 'th in rank order (' + sample.points.length + ' points)' :
                           'Every fitting strategy (' + sample.fits + ')') +
      ', with the Pareto set (no other strategy is both faster and smaller) drawn whole and joined.';
  var front = doc.pareto || [];
  chart('chart-pareto', {
    type: 'scatter',
    data: {
      datasets: [
        {
          label: 'Pareto set',
          data: front.map(function(r) { return {x: gib(peakOf(r)), y: r.time.step_s}; }),
          borderColor: '#e15759',
          backgroundColor: '#e15759',
          showLine: true,
          pointRadius: 4,
          order: 0
        },
        {
          label: 'best',
          data: [{x: gib(peakOf(doc.ranking[0])), y: doc.ranking[0].time.step_s}],
          backgroundColor: '#1d232b',
          pointRadius: 7,
          pointStyle: 'star',
          borderColor: '#1d232b',
          order: 1
        },
        {
          label: sample.stride > 1 ? 'fitting strategies (sampled)' : 'fitting strategies',
          data: sample.points.map(function(p) { return {x: gib(p[1]), y: p[0]}; }),
          backgroundColor: 'rgba(78, 121, 167, 0.6)',
          borderColor: 'rgba(78, 121, 167, 0.6)',
          pointRadius: 2.5,
          order: 2
        }
      ]
    },
    options: {
      scales: {
        x: axis('peak memory, GiB per device'),
        y: axis('step time, s (log scale)', {type: 'logarithmic'})
      },
      plugins: {
        tooltip: {
          callbacks: {
            label: function(item) {
              var text = fixed(item.parsed.x, 2) + ' GiB, ' + fixed(item.parsed.y, 3) + ' s';
              if (item.datasetIndex === 0)
                text += ': ' + strategyText(front[item.dataIndex].strategy);
              return text;
            }
          }
        }
      }
    }
  });
}

function drawRefusals() {
  if (data.kind !== 'search')
    return noChart(
        'chart-refusals',
        'A search\'s report counts its refusals here; this report is of one strategy.');
  var c = doc.counts, labels = [], values = [], colours = [];
  function add(label, n, col) {
    if (n > 0) {
      labels.push(label);
      values.push(n);
      colours.push(col);
    }
  }
  add('fit', c.fit, '#59a14f');
  add('dropped: over the budget', c.dropped, '#e15759');
  add('outpaced (over the budget, and no faster than the kept)', c.outpaced, '#f28e2b');
  Object.keys(c.refused).sort().forEach(function(
      id) { add('refused: ' + id, c.refused[id], '#6b6b6b'); });
  document.getElementById('refusals-help').textContent = 'Of the ' + c.tested +
      ' candidates tested, how many each check refused, how many the memory budget dropped, and how many fit (a log scale).';
  chart('chart-refusals', {
    type: 'bar',
    data:
        {labels: labels, datasets: [{label: 'candidates', data: values, backgroundColor: colours}]},
    options: {
      indexAxis: 'y',
      scales: {x: axis('candidates (log scale)', {type: 'logarithmic', min: 0.5})},
      plugins: {legend: {display: false}}
    }
  });
}

function drawTimeline() {
  var t = data.timeline;
  if (!t) return noChart('chart-timeline', data.timeline_note || 'No timeline.');
  var box = document.getElementById('timeline-box');
  box.style.height = Math.max(220, 60 + 34 * t.tracks.length) + 'px';
  document.getElementById('timeline-help').textContent =
      'Each pipeline rank\'s forward, recompute and backward ' +
      'passes of each micro-batch and chunk, its exposed sends, then the step\'s exposed data-parallel, optimizer and ' +
      'overhead work, as the time model prices them (' + fixed(t.step_s, 3) + ' s per step; ' +
      t.slices.length + ' slices' +
      (t.cut_at_s !== undefined ?
           ' of ' + t.slices_in_step + ': the passes after ' + fixed(1e3 * t.cut_at_s, 0) +
               ' ms are left out, too many to tell apart; explain --timeline writes them all' :
           '') +
      '). Hover for the micro-batch and chunk.';
  var datasets = t.kinds.map(function(kind) {
    return {
      label: kind,
      backgroundColor: partColour(kind),
      grouped: false,
      barPercentage: 0.8,
      categoryPercentage: 1,
      data: []
    };
  });
  t.slices.forEach(function(s) {
    datasets[s[1]].data.push(
        {x: [1e3 * s[2], 1e3 * (s[2] + s[3])], y: t.tracks[s[0]], mb: s[4], chunk: s[5]});
  });
  chart('chart-timeline', {
    type: 'bar',
    data: {labels: t.tracks, datasets: datasets.filter(function(d) { return d.data.length > 0; })},
    options: {
      indexAxis: 'y',
      scales: {x: axis('ms from the step\'s start', {min: 0}), y: {stacked: false}},
      plugins: {
        tooltip: {
          callbacks: {
            label: function(item) {
              var r = item.raw;
              return item.dataset.label +
                  (r.mb >= 0 ? ' micro-batch ' + r.mb + ', chunk ' + r.chunk : '') + ': ' +
                  fixed(r.x[0], 1) + ' to ' + fixed(r.x[1], 1) + ' ms';
            }
          }
        }
      }
    }
  });
}

function drawRecompute() {
  var first = (data.potentials || []).filter(function(p) { return p.rank === 1; });
  if (first.length === 0)
    return noChart(
        'chart-recompute',
        'No recompute potentials: no strategy fits, a check refused the strategy, or its stages could not be priced with every layer kept.');
  var options = [], stages = [];
  first.forEach(function(p) {
    if (options.indexOf(p.option) < 0) options.push(p.option);
    if (stages.indexOf(p.stage) < 0) stages.push(p.stage);
  });
  document.getElementById('recompute-help').textContent = 'For the ' +
      (data.kind === 'search' ? 'best strategy' : 'strategy') +
      ', every layer of each stage under each option against ' +
      'every layer kept: the bytes it saves (bars, left) and the seconds it adds per step (points, right).';
  var datasets = [];
  options.forEach(function(o, i) {
    var of = function(stage) {
      return first.filter(function(p) { return p.option === o && p.stage === stage; })[0];
    };
    datasets.push({
      type: 'bar',
      label: o + ': GiB saved',
      backgroundColor: colour(i),
      yAxisID: 'y',
      data: stages.map(function(s) {
        var p = of(s);
        return p ? gib(p.saved_bytes) : 0;
      })
    });
    datasets.push({
      type: 'line',
      label: o + ': s added',
      borderColor: colour(i),
      backgroundColor: colour(i),
      showLine: false,
      pointRadius: 6,
      pointStyle: 'rectRot',
      yAxisID: 'y2',
      data: stages.map(function(s) {
        var p = of(s);
        return p ? p.extra_s : 0;
      })
    });
  });
  chart('chart-recompute', {
    type: 'bar',
    data: {labels: stages.map(function(s) { return 'stage ' + s; }), datasets: datasets},
    options: {
      scales: {
        y: axis('GiB saved per device', {beginAtZero: true, position: 'left'}),
        y2: axis(
            'seconds added per step',
            {beginAtZero: true, position: 'right', grid: {drawOnChartArea: false}})
      }
    }
  });
}

function run(step) {
  try {
    step();
  } catch (e) {
    window.ndsErrors.push(step.name + ': ' + e.message);
  }
}
[fillTable, fillCounts, fillChecks, drawParts, drawMemory, drawPareto, drawRefusals, drawTimeline,
 drawRecompute]
    .forEach(run);

var root = document.documentElement;
root.dataset.reportCharts = JSON.stringify(drawn.map(function(id) {
  var r = document.getElementById(id).getBoundingClientRect();
  return {
    id: id,
    x: Math.round(r.left + window.scrollX),
    y: Math.round(r.top + window.scrollY),
    w: Math.round(r.width),
    h: Math.round(r.height)
  };
}));
root.dataset.reportHeight = String(document.documentElement.scrollHeight);
root.dataset.reportMs = String(Math.round(performance.now() - started));
root.dataset.reportErrors = JSON.stringify(window.ndsErrors);
root.dataset.reportReady = '1';
})();
