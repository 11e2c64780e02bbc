#include "remat/fxtext/graph_statements.h"

#include <unordered_set>

#include "remat/fxtext/checkpoint_policy.h"
#include "remat/fxtext/recompute_tags.h"
#include "remat/fxtext/tensor_annotation.h"
#include "remat/fxtext/text_scan.h"

namespace remat::fxtext {
namespace {

/// `name: "annotation"` / `name = ...` at the start of a statement (with `parameter`, also a bare
/// parameter `name,`); the name, or empty.
std::string leading_name(std::string_view body, std::string_view& annotation,
                         bool parameter = false) {
  size_t i = 0;
  while (i < body.size() && is_identifier_char(body[i])) ++i;
  if (i == 0 || (body[0] >= '0' && body[0] <= '9')) return "";
  std::string_view name = body.substr(0, i), rest = body.substr(i);
  static constexpr std::string_view kNotNames[] = {"return", "def", "class", "self", "import",
                                                   "from",   "if",  "for",   "with"};
  for (std::string_view k : kNotNames) {
    if (name == k) return "";
  }
  annotation = {};
  if (rest.starts_with(": \"") || rest.starts_with(": '")) {
    char q = rest[2];
    size_t end = rest.find(q, 3);
    if (end == std::string_view::npos) return "";
    annotation = rest.substr(3, end - 3);
    return std::string(name);
  }
  if (rest.starts_with(" = ")) return std::string(name);
  if (parameter && (rest.starts_with(",") || rest.starts_with(")") || rest.empty()))
    return std::string(name);  // a bare parameter
  return "";
}

GraphLine input(size_t line, std::string name, std::string_view annotation) {
  return {line, std::move(name), std::nullopt, "", annotation_bytes(annotation), true};
}

}  // namespace

std::vector<GraphLine> graph_lines(std::string_view text) {
  std::vector<GraphLine> out;
  // Pytree codegen binds the inputs in its flatten statement, not in the signature; their types
  // come first, in annotation-only statements (`primals_1: "f32[4]"; ...` on one line, or one
  // per line with descriptor comments when the definition is expanded). Each input is a node
  // where it is first named.
  bool pytree = text.find("= fx_pytree.tree_flatten_spec(") != std::string_view::npos;
  std::unordered_set<std::string> seen;
  // Tags come in two placements. The seed's stands alone above one node (`# ac_graph_id: 2 -
  // PREFER_RECOMPUTE`); PyTorch's Nov-2025 and 2026 ones sit inside the comment that heads a group
  // of statements (`# # ac_graph_id: 2 - ... File: ...`, `# ac_graph_id: 2 - ... File: ...`) and
  // hold for every node of the group, up to the next comment.
  std::optional<int64_t> pending_id, group_id;
  std::string pending_policy, group_policy;
  bool in_signature = false;
  std::vector<std::string_view> lines = split_lines(text);
  for (size_t this_line = 0; this_line < lines.size(); ++this_line) {
    std::string_view body = trim(lines[this_line]);
    if (body.empty()) {
      // A standalone tag belongs to the statement right below it; one before a blank line is an
      // input's (PyTorch prints the tags of placeholders after the signature).
      pending_id.reset();
      pending_policy.clear();
      continue;
    }
    if (body.starts_with("#")) {
      // `# ac_graph_id: 2 - PREFER_RECOMPUTE`, `# recompute: MUST_SAVE`, and the tags inside a
      // stack-trace comment (PyTorch's later placements).
      std::optional<CommentTags> tags = comment_tags(body);
      std::optional<int64_t> id = tags ? tags->tags.ac_graph_id : std::nullopt;
      std::string policy =
          tags && tags->tags.recompute ? std::string(policy_name(*tags->tags.recompute)) : "";
      if (tags && tags->standalone) {
        if (id) pending_id = id;
        if (!policy.empty()) pending_policy = policy;
      } else {
        group_id = id;
        group_policy = policy;
      }
      continue;
    }
    if (body.starts_with("def forward(")) {
      std::string_view params = body.substr(12);
      if (pytree && !params.empty()) continue;
      if (params.empty()) {
        in_signature = true;  // expanded: one parameter per line
        continue;
      }
      // Plain: `def forward(self, x: "f32[4]", y):`, split at the commas outside quotes.
      size_t close = find_outside_quotes(
          params, 0, [](char c, size_t, int depth) { return c == ')' && depth < 0; });
      for_each_top_level(params.substr(0, close), ",", [&](std::string_view param) {
        std::string_view annotation;
        std::string name = leading_name(trim(param), annotation, /*parameter=*/true);
        if (!name.empty()) out.push_back(input(this_line, name, annotation));
        return true;
      });
      continue;
    }
    if (in_signature) {
      if (body.starts_with(")")) {
        in_signature = false;
        continue;
      }
      if (pytree) continue;  // `primals, tangents`: the flatten statement binds the nodes
      std::string_view annotation;
      std::string name = leading_name(body, annotation, /*parameter=*/true);
      if (!name.empty()) out.push_back(input(this_line, name, annotation));
      continue;
    }
    if (size_t flatten = body.find("= fx_pytree.tree_flatten_spec(");
        flatten != std::string_view::npos) {
      for_each_top_level(body.substr(0, flatten), ",", [&](std::string_view part) {
        std::string_view name = trim(part);
        size_t n = 0;
        while (n < name.size() && is_identifier_char(name[n])) ++n;
        if (n > 0 && seen.insert(std::string(name.substr(0, n))).second)
          out.push_back(input(this_line, std::string(name.substr(0, n)), {}));
        return true;
      });
      continue;
    }
    std::string_view annotation;
    std::string name = leading_name(body, annotation);
    if (name.empty()) continue;
    if (pytree && body.find(" = ") == std::string_view::npos) {
      // `primals_1: "f32[4]"; primals_2: "f32[4]"; ...`: the inputs' types.
      for_each_top_level(body, "; ", [&](std::string_view part) {
        std::string_view a;
        std::string n = leading_name(trim(part), a);
        if (!n.empty() && seen.insert(n).second) out.push_back(input(this_line, n, a));
        return true;
      });
      continue;
    }
    if (pytree) seen.insert(name);  // only pytree inputs are checked against it
    out.push_back({this_line, name, pending_id ? pending_id : group_id,
                   pending_policy.empty() ? group_policy : pending_policy,
                   annotation_bytes(annotation)});
    pending_id.reset();
    pending_policy.clear();
  }
  return out;
}

}  // namespace remat::fxtext
