#include "remat/report/export_pages.h"

#include <functional>
#include <set>

#include "remat/report/html.h"

namespace remat::report {
namespace {

using Json = nlohmann::json;

std::string text_of(const Json& meta, const char* key) {
  if (!meta.is_object() || !meta.contains(key)) return "";
  const Json& v = meta[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::optional<uint64_t> id_of(const Json& meta, const char* key) {
  if (!meta.is_object() || !meta.contains(key) || !meta[key].is_number_unsigned())
    return std::nullopt;
  return meta[key].get<uint64_t>();
}

// Fake kernels: torch's guide on writing one.
constexpr const char* kFakeKernelGuide =
    "Please refer to <a "
    "href='https://docs.google.com/document/d/1_W62p8WJOQQUzPsJYa7s701JXt0qf2OfLub2sbkHOaU/"
    "edit#heading=h.ahugy69p2jmz'>this doc</a> for more detailed instructions on how to write a "
    "fake kernel.";

std::string stack_list(const char* caption, const std::vector<std::string>& frames, bool open) {
  std::string out =
      std::string("<details") + (open ? " open" : "") + "><summary>" + caption + "</summary><ul>";
  for (const std::string& f : frames) out += "<li><code>" + html_escape(f) + "</code></li>";
  return out + "</ul></details>\n";
}

}  // namespace

void index_sym_expr(const std::string& event, const Json& meta, SymExprIndex& index) {
  if (event == "expression_created") {
    if (auto id = id_of(meta, "result_id")) index[*id] = meta;
  } else if (event == "create_unbacked_symbol") {
    // An unbacked symbol is the leaf its expressions start from.
    if (auto id = id_of(meta, "node_id")) {
      Json leaf = Json::object();
      leaf["result"] = meta.value("symbol", "");
      leaf["method"] = "create_unbacked_symbol";
      index[*id] = leaf;
    }
  }
}

bool has_symbolic_guard_page(const std::string& event, const Json& meta) {
  if (event == "propagate_real_tensors_provenance") return true;
  return event == "guard_added" && text_of(meta, "prefix") == "eval";
}

std::optional<ExportFailure> export_failure(const std::string& event, const Json& meta,
                                            const std::string& page) {
  std::string more =
      "Please click <a href='" + html_escape(page) + "'>here</a> for more information.";
  if (event == "guard_added" && has_symbolic_guard_page(event, meta)) {
    return ExportFailure{"Guard Evaluated",
                         "When exporting, the following guard was evaluated <code>" +
                             html_escape(text_of(meta, "expr")) +
                             "</code>. This might've resulted in a constraint violation error.",
                         more};
  }
  if (event == "propagate_real_tensors_provenance") {
    return ExportFailure{"Data Dependent Error",
                         "When exporting, we were unable to figure out if the expression <code>" +
                             html_escape(text_of(meta, "expr")) +
                             "</code> always holds.<br> As a result, it was "
                             "specialized to evaluate to <code>" +
                             html_escape(text_of(meta, "result")) +
                             "</code>, and asserts were inserted into the graph.",
                         more};
  }
  if (event == "missing_fake_kernel") {
    return ExportFailure{"Missing Fake Kernel",
                         "<code>torch.ops." + html_escape(text_of(meta, "op")) +
                             "</code> is missing a fake kernel implementation",
                         kFakeKernelGuide};
  }
  if (event == "mismatched_fake_kernel") {
    return ExportFailure{"Mismatched Fake Kernel",
                         "<code>torch.ops." + html_escape(text_of(meta, "op")) +
                             "</code> has a fake kernel implementation, "
                             "but it has incorrect behavior, based on the real kernel.<br>The "
                             "reason for the mismatch is: " +
                             html_escape(text_of(meta, "reason")),
                         kFakeKernelGuide};
  }
  return std::nullopt;
}

std::string symbolic_guard_body(const Json& meta, const std::vector<std::string>& user_stack,
                                const std::vector<std::string>& framework_stack,
                                const SymExprIndex& index) {
  std::string body =
      "<h1>Symbolic guard <code>" + html_escape(text_of(meta, "expr")) + "</code></h1>\n";
  body += stack_list("User Stack", user_stack, true);
  body += stack_list("Framework Stack", framework_stack, false);
  if (meta.contains("frame_locals") && meta["frame_locals"].is_object()) {
    const Json& fl = meta["frame_locals"];
    body += "<h2>Locals</h2>\n<p><code>" + html_escape(text_of(fl, "loc")) +
            "</code></p>\n<table id=\"locals\">";
    if (fl.contains("locals") && fl["locals"].is_object()) {
      for (const auto& [name, value] : fl["locals"].items())
        body += "<tr><td><code>" + html_escape(name) + "</code></td><td><code>" +
                html_escape(value.is_string() ? value.get<std::string>() : value.dump()) +
                "</code></td></tr>";
    }
    body += "</table>\n";
  }
  // How the expression was built: each sub-expression with its method and arguments, once.
  std::set<uint64_t> seen;
  std::function<std::string(uint64_t, int)> trie = [&](uint64_t id, int depth) -> std::string {
    auto it = index.find(id);
    if (it == index.end() || !seen.insert(id).second || depth > 64) return "";
    const Json& e = it->second;
    std::string args;
    if (e.contains("arguments") && e["arguments"].is_array())
      for (const Json& a : e["arguments"])
        args += (args.empty() ? "" : ", ") + (a.is_string() ? a.get<std::string>() : a.dump());
    std::string out = "<li><code>" + html_escape(text_of(e, "result")) +
                      "</code> = " + html_escape(text_of(e, "method")) + "(" + html_escape(args) +
                      ")";
    std::string children;
    if (e.contains("argument_ids") && e["argument_ids"].is_array())
      for (const Json& a : e["argument_ids"])
        if (a.is_number_unsigned()) children += trie(a.get<uint64_t>(), depth + 1);
    if (!children.empty()) out += "<ul>" + children + "</ul>";
    return out + "</li>";
  };
  if (auto root = id_of(meta, "expr_node_id")) {
    std::string t = trie(*root, 0);
    if (!t.empty())
      body += "<h2>How the expression was built</h2>\n<ul id=\"sym-expr-trie\">" + t + "</ul>\n";
  }
  return body;
}

std::string export_index_body(const std::vector<ExportFailure>& failures,
                              const std::string& program_url) {
  std::string body = "<h1>Export report</h1>\n";
  if (failures.empty()) {
    body +=
        "<p id=\"export-status\" class=\"status-ok\">Export succeeded: no guards were evaluated, "
        "no data-dependent "
        "expressions were specialized and no fake kernel was missing.</p>\n";
  } else {
    body += "<p id=\"export-status\" class=\"status-fail\">" + std::to_string(failures.size()) +
            (failures.size() == 1 ? " issue" : " issues") + " found while exporting:</p>\n";
    body +=
        "<table id=\"export-failures\"><tr><th>Failure Type</th><th>Reason</th><th>Additional "
        "Info</th></tr>\n";
    for (const ExportFailure& f : failures)
      body += "<tr><td>" + html_escape(f.type) + "</td><td>" + f.reason_html + "</td><td>" +
              f.info_html + "</td></tr>\n";
    body += "</table>\n";
  }
  if (!program_url.empty())
    body += "<p>The exported program: <a id=\"exported-program\" href=\"" +
            html_escape(program_url) + "\">" + html_escape(program_url) + "</a></p>\n";
  return body;
}

}  // namespace remat::report
