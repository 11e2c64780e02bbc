#include "remat/report/graph_script.h"

namespace remat::report {

// What it builds, line by line, is the markup the report used to write itself: the same classes,
// ids (L1, L2, ...: other pages link to them; the script runs while the page is parsed, so a #L57
// in the address finds its line), data-node and data-ac-graph-id attributes, gutter chips with
// their tooltips, and the highlighting of python_html.cpp's append_python_line, token for token
// (tests/cli/browser_test.cpp compares it in Chromium).
std::string_view graph_page_script() {
  return R"JS((() => {
const pre = document.getElementById('graph-code');
const data = JSON.parse(document.getElementById('graph-data').textContent);
const ENTITY = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'};
const esc = s => s.replace(/[&<>"']/g, c => ENTITY[c]);
const KEYWORDS = new Set(['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await',
  'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from',
  'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise',
  'return', 'try', 'while', 'with', 'yield']);
const isDigit = c => c >= '0' && c <= '9';
const isStart = c => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isChar = c => isStart(c) || isDigit(c);
const span = (cls, text) => '<span class="' + cls + '">' + esc(text) + '</span>';
function highlight(line) {
  let out = '', i = 0, plain = 0;  // line[plain, i): plain text not yet written
  const flush = () => { out += esc(line.slice(plain, i)); };
  while (i < line.length) {
    const c = line[i];
    if (c === '#') { flush(); return out + span('c', line.slice(i)); }
    if (c === '"' || c === "'") {
      flush();
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += line[j] === '\\' ? 2 : 1;
      j = Math.min(j + 1, line.length);
      out += span('s', line.slice(i, j));
      i = plain = j;
      continue;
    }
    if (isDigit(c)) {
      flush();
      let j = i;
      while (j < line.length && (isChar(line[j]) || line[j] === '.')) ++j;
      out += span('n', line.slice(i, j));
      i = plain = j;
      continue;
    }
    if (isStart(c)) {
      let j = i;
      while (j < line.length && isChar(line[j])) ++j;
      const word = line.slice(i, j);
      if (word === 'torch' && line.startsWith('.ops.', j)) {  // torch.ops.aten.mm.default
        flush();
        while (j < line.length && (isChar(line[j]) || line[j] === '.')) ++j;
        out += span('op', line.slice(i, j));
        plain = j;
      } else if (KEYWORDS.has(word)) {
        flush(); out += span('k', word); plain = j;
      } else if (word === 'self' || word === 'torch' || word === 'operator') {
        flush(); out += span('b', word); plain = j;
      }
      i = j;
      continue;
    }
    ++i;
  }
  flush();
  return out;
}
const lines = pre.textContent.split('\n');
if (lines[lines.length - 1] === '') lines.pop();
const node = new Map(data.nodes.map(([line, name, region = null, count = 1]) => [line, {name, region, count}]));
const KIND_CLASS = ['saved', 'recomputed', 'forward', 'backward', 'moved', 'saved-input'];
const KIND_TEXT = ['saved', 'recomputed', 'forward only', 'backward only',
  'forward op, run in the backward', 'input, read by the backward'];
const chips = new Map();
for (const chip of data.chips || []) {
  if (!chips.has(chip[0])) chips.set(chip[0], []);
  chips.get(chip[0]).push(chip);
}
function chipHtml([line, kind, bytes, reason = -1, cost = '', name = node.get(line).name]) {
  const text = KIND_TEXT[kind];
  let tip = name + ': ' + text;
  if (reason >= 0) tip += ' \u2014 ' + data.reasons[reason];
  if (cost) tip += ' (' + cost + ')';
  const label = (node.get(line).count > 1 ? name + ': ' : '') + text + (bytes ? ' ' + bytes : '');
  return '<span class="mark mark-' + KIND_CLASS[kind] + '" title="' + esc(tip) + '">' + esc(label) + '</span>';
}
const inputTags = new Set(data.inputTags);
let html = '';
lines.forEach((line, k) => {
  const n = k + 1, at = node.get(k), tag = inputTags.has(k);
  html += '<span class="line' + (tag ? ' input-tag' : '') + '" id="L' + n + '"';
  if (tag) html += ' title="the tag of an input (a saved value): printed by PyTorch, not a recomputation"';
  if (at) {
    html += ' data-node="' + esc(at.name) + '"';
    if (at.region !== null) html += ' data-ac-graph-id="' + at.region + '" style="' + esc(data.regions[at.region]) + '"';
  }
  html += '><span class="ln">' + n + '</span>';
  if (data.chips) html += '<span class="gutter">' + (chips.get(k) || []).map(chipHtml).join('') + '</span>';
  html += highlight(line) + '</span>';
});
pre.innerHTML = html;
})();
)JS";
}

}  // namespace remat::report
