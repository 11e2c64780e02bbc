#include "remat/report/report_builder.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "remat/report/derived_partition.h"
#include "remat/report/export_pages.h"
#include "remat/report/glossary.h"
#include "remat/report/graph_html.h"
#include "remat/report/html.h"
#include "remat/report/partition_html.h"
#include "remat/report/provenance_page.h"
#include "remat/report/python_html.h"
#include "remat/support/background_writer.h"
#include "remat/support/file_io.h"
#include "remat/tracelog/trace_reader.h"

namespace remat::report {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using tracelog::CompileId;
using tracelog::TraceRecord;

// Events whose payload is graph text, written as `<event>_<N>.txt` (trace-log spec A.5).
bool is_graph_dump(std::string_view e) {
  static constexpr std::string_view kGraphs[] = {
      "dynamo_output_graph",      "optimize_ddp_split_graph", "optimize_ddp_split_child",
      "compiled_autograd_graph",  "aot_joint_graph",          "aot_forward_graph",
      "aot_backward_graph",       "aot_inference_graph",      "inductor_pre_grad_graph",
      "inductor_post_grad_graph", "dynamo_cpp_guards_str",    "graph_dump",
      "exported_program"};
  for (std::string_view g : kGraphs) {
    if (g == e) return true;
  }
  return false;
}
bool is_fx_graph(std::string_view e) {
  return e != "dynamo_cpp_guards_str" && e != "exported_program" && is_graph_dump(e);
}
bool is_metrics(std::string_view e) {
  return e == "compilation_metrics" || e == "bwd_compilation_metrics" ||
         e == "aot_autograd_backward_compilation_metrics";
}

// The glossary of the partitioner's reasons, at the site's root, as the compile folders' pages
// link it.
constexpr std::string_view kGlossaryPage = "glossary.html";
constexpr std::string_view kGlossaryLink = "../glossary.html";

// The artifact remat's compile writes with the partition report (`remat compile`).
constexpr std::string_view kPartitionArtifact = "remat_partition";
// Inductor's provenance artifact: kernel name -> the stack traces of the nodes it fuses.
constexpr std::string_view kKernelStackTraces = "inductor_provenance_tracking_kernel_stack_traces";

/// The kernel stack traces as tlparse's readable page shows them: a heading per kernel, each
/// trace preformatted (the strings spell newlines as `\n`).
std::string kernel_stack_traces_page(const Json& traces) {
  std::string html = "<html><body>\n";
  if (traces.is_object()) {
    for (const auto& [kernel, list] : traces.items()) {
      html += "<h3>" + html_escape(kernel) + "</h3>\n";
      if (!list.is_array()) continue;
      for (const Json& t : list) {
        if (!t.is_string()) continue;
        std::string text = t.get<std::string>();
        std::string decoded;
        for (size_t i = 0; i < text.size(); ++i) {
          if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == 'n') {
            decoded += '\n';
            ++i;
          } else {
            decoded += text[i];
          }
        }
        while (!decoded.empty() && decoded.back() == '\n') decoded.pop_back();
        html += "<pre>" + html_escape(decoded) + "</pre>\n";
      }
    }
  }
  return html + "</body></html>\n";
}

struct OutputFile {
  std::string url, name;
  int number = 0;
  std::string suffix;
  std::optional<std::string> readable_url;
  std::string detail;  // "25 nodes, 3.2 KB"
};

struct CompileDir {
  std::string key;  // "[0/0]", or "[-/-]" for records logged outside a compile
  std::string anchor;
  std::vector<OutputFile> files;
  bool has_metrics = false;
  std::optional<std::string> failure;
  std::vector<std::string> stack;                     // frames, outermost first
  std::optional<records::PartitionRecord> partition;  ///< the `remat_partition` artifact
  std::string partition_page;                         ///< its page
  PartitionMarks marks;  ///< filled from `partition` and the forward/backward graphs
  std::vector<GraphLine> forward_lines, backward_lines;  ///< the logged aot_forward/backward graphs
  std::string forward_text, backward_text;               ///< and their text
  /// Without a partition record: the one read off the logged graphs (its charts dropped once its
  /// page is written) and that page.
  std::optional<records::PartitionRecord> derived;
  std::string derived_page;
  /// What its partition saved and recomputed, once the compile is finished.
  std::optional<PartitionSummary> summary;
  ProvenanceSources provenance;  ///< with --inductor-provenance
  std::string provenance_page;   ///< its page, once written
  /// Whether a record other than a chromium event named this compile (tlparse lists a compile
  /// that only chromium events name, but such a log holds no compile events).
  bool has_records = false;
};

/// A joint graph whose page waits for its compile to finish: the partition marks come from
/// records logged after it (the forward and backward graphs, remat's partition record).
struct PendingJoint {
  size_t dir;
  std::string title, txt, html;
  std::string text;
  std::vector<GraphLine> nodes;
};

struct TrieNode {
  std::vector<std::pair<std::string, std::unique_ptr<TrieNode>>> children;
  std::vector<size_t> compiles;  // dirs ending here
  TrieNode* child(const std::string& text) {
    for (auto& [t, c] : children) {
      if (t == text) return c.get();
    }
    children.emplace_back(text, std::make_unique<TrieNode>());
    return children.back().second.get();
  }
};

std::string strip_prefix_path(const std::string& file) {
  // Long absolute paths read better from the package root (torch/..., site-packages/...).
  for (std::string_view marker : {"/site-packages/", "/dist-packages/"}) {
    if (size_t at = file.rfind(marker); at != std::string::npos)
      return file.substr(at + marker.size());
  }
  if (size_t at = file.rfind("/torch/"); at != std::string::npos) return file.substr(at + 1);
  return file;
}

/// The texts the provenance page shows, latest first-choice artifact of each kind (tlparse prefers
/// before_pre_grad_graph and after_post_grad_graph to Inductor's own graph dumps).
void keep_provenance(const TraceRecord& r, const std::string& artifact, ProvenanceSources& p) {
  const std::string& e = r.event;
  std::string_view what = e == "artifact" ? std::string_view(artifact) : std::string_view(e);
  if (what == "before_pre_grad_graph" || (what == "inductor_pre_grad_graph" && p.pre_grad.empty()))
    p.pre_grad = r.payload;
  else if (what == "after_post_grad_graph" ||
           (what == "inductor_post_grad_graph" && p.post_grad.empty()))
    p.post_grad = r.payload;
  else if (what == "inductor_output_code")
    p.output_code = r.payload;
  else if (what == "inductor_aot_wrapper_code")
    p.aot_code = r.payload;
  else if (what == "inductor_provenance_tracking_node_mappings")
    p.node_mappings = r.payload;
}

class Builder {
 public:
  Builder(std::string out, const ReportOptions& options)
      : out_(std::move(out)), options_(options), files_(out_) {}

  Status run(tracelog::TraceReader& reader, const std::string& log_path, ReportResult& result);

 private:
  void handle(const TraceRecord& r, tracelog::TraceReader& reader);
  /// A graph's page, rendered and written on the writer's thread (it gets its own copies).
  void write_graph_page(std::string title, std::string text, std::vector<GraphLine> nodes,
                        std::optional<PartitionMarks> marks, const std::string& txt,
                        const std::string& html);
  /// Once a compile is finished (its compilation_metrics, or the end of the log): its partition
  /// marks, the pages of its joint graphs, its summary; the graphs read for the marks are freed.
  void finish_compile(size_t dir);
  size_t dir_for(const CompileId& id);
  /// Queues `rel` for the writer's thread; a write error is the report's, at the end (finish).
  void write(const std::string& rel, std::string content);
  void add_file(size_t dir, std::string rel, std::string_view content, std::string detail = {},
                std::optional<std::string> readable = std::nullopt);
  /// `<folder>/<stem>_<N><ext>`: the name the next numbered artifact gets.
  std::string numbered(const std::string& folder, const std::string& stem,
                       std::string_view ext) const {
    return folder + "/" + stem + "_" + std::to_string(counter_) + std::string(ext);
  }
  std::vector<std::string> frames_of(std::string_view stack_json, tracelog::TraceReader& reader);
  std::string metrics_page(const TraceRecord& r, const CompileDir& d, const Json& metrics);
  std::string index_page(const tracelog::TraceReader& reader);
  std::string footer() const;
  void raw_jsonl(const TraceRecord& r, const std::optional<std::string>& payload_file);

  /// Export mode's records: the failures table, symbolic guard pages, the expressions behind them.
  /// True when the record was taken.
  bool handle_export(const TraceRecord& r, const Json& meta, tracelog::TraceReader& reader,
                     size_t dir, const std::string& folder);

  std::string out_;
  std::string log_path_;  ///< for the places errors name (`LOG:LINE`)
  const ReportOptions& options_;
  std::vector<ExportFailure> export_failures_;
  SymExprIndex sym_exprs_;
  std::string exported_program_;
  int counter_ = 0;
  std::vector<CompileDir> dirs_;
  std::map<std::string, size_t> dir_index_;
  std::vector<PendingJoint> joints_;
  std::vector<std::pair<std::string, std::string>> failures_;  // compile id link, description html
  TrieNode trie_, unknown_trie_;
  std::ofstream raw_;       // raw.jsonl records, before the string table is known
  std::ofstream chromium_;  // chromium_events.json
  size_t chromium_count_ = 0;
  ReportResult* result_ = nullptr;
  // Pages are created and filled on a second thread while the log is read and the next pages
  // are rendered (a third of the report's time is the kernel's: bench_trace_log).
  BackgroundWriter files_;
};

std::string Builder::footer() const {
  return "Generated by remat " + html_escape(options_.version) +
         (options_.command_line.empty()
              ? ""
              : " &middot; <code>" + html_escape(options_.command_line) + "</code>");
}

void Builder::write(const std::string& rel, std::string content) {
  files_.write(rel, std::move(content));
  result_->files.push_back(rel);
}

void Builder::add_file(size_t dir, std::string rel, std::string_view content, std::string detail,
                       std::optional<std::string> readable) {
  write(rel, std::string(content));
  OutputFile f;
  f.url = rel;
  f.name = rel;
  f.number = counter_;
  if (rel.find("cache_miss") != std::string::npos)
    f.suffix = "\u274c";
  else if (rel.find("cache_hit") != std::string::npos)
    f.suffix = "\u2705";
  else if (rel.find("cache_bypass") != std::string::npos)
    f.suffix = "\u2753";
  f.readable_url = std::move(readable);
  f.detail = detail.empty() ? human_bytes(content.size()) : std::move(detail);
  dirs_[dir].files.push_back(std::move(f));
  ++counter_;
  ++result_->artifacts;
}

size_t Builder::dir_for(const CompileId& id) {
  std::string key = id.normalized().display();
  auto [it, fresh] = dir_index_.try_emplace(key, dirs_.size());
  if (fresh) {
    CompileDir d;
    d.key = key;
    d.anchor = id.normalized().directory_name();
    dirs_.push_back(std::move(d));
  }
  return it->second;
}

std::vector<std::string> Builder::frames_of(std::string_view stack_json,
                                            tracelog::TraceReader& reader) {
  std::vector<std::string> frames;
  Json stack = Json::parse(stack_json, nullptr, /*allow_exceptions=*/false);
  if (!stack.is_array()) return frames;
  for (const Json& f : stack) {
    if (!f.is_object()) continue;
    std::string file = "?";
    if (f.contains("filename")) {
      const Json& fn = f["filename"];
      if (fn.is_number_integer()) {
        auto i = fn.get<int64_t>();
        const auto& table = reader.string_table();
        if (i >= 0 && static_cast<size_t>(i) < table.size() && table[i]) file = *table[i];
      } else if (fn.is_string()) {
        file = fn.get<std::string>();
      }
    }
    std::string name =
        f.contains("name") && f["name"].is_string() ? f["name"].get<std::string>() : "?";
    int64_t line =
        f.contains("line") && f["line"].is_number_integer() ? f["line"].get<int64_t>() : 0;
    frames.push_back(fmt::format("{}:{} in {}", strip_prefix_path(file), line, name));
  }
  // The frames of Dynamo's own entry (convert_frame.py) say nothing about the user's code.
  while (!frames.empty() && frames.back().starts_with("torch/_dynamo/convert_frame.py:"))
    frames.pop_back();
  return frames;
}

void Builder::raw_jsonl(const TraceRecord& r, const std::optional<std::string>& payload_file) {
  Json envelope = Json::parse(r.envelope, nullptr, false);
  if (!envelope.is_object()) return;
  for (const char* key : {"timestamp", "thread", "pathname", "lineno", "payload_filename"}) {
    if (envelope.contains(key) && (std::string_view(key) != "payload_filename" || payload_file)) {
      ++result_->fail_key_conflict;
      return;
    }
  }
  envelope["timestamp"] = r.header.iso_timestamp(options_.year);
  envelope["thread"] = r.header.thread;
  envelope["pathname"] = r.header.pathname;
  envelope["lineno"] = r.header.lineno;
  if (payload_file) envelope["payload_filename"] = *payload_file;
  raw_ << envelope.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
}

std::string Builder::metrics_page(const TraceRecord& r, const CompileDir& d, const Json& metrics) {
  std::string body = "<h1>" + html_escape(r.event) + " " + html_escape(d.key) + "</h1>\n";
  body += "<h2>Output files</h2>\n<ul>";
  for (const OutputFile& f : d.files) {
    body += "<li><a href=\"../" + html_escape(f.readable_url.value_or(f.url)) + "\">" +
            html_escape(f.name) + "</a> (" + std::to_string(f.number) + ")</li>";
  }
  body += "</ul>\n";
  if (!d.stack.empty()) {
    body += "<h2>Stack</h2>\n<ul>";
    for (const std::string& f : d.stack) body += "<li><code>" + html_escape(f) + "</code></li>";
    body += "</ul>\n";
  }
  body += "<h2>Metrics</h2>\n<table><tr><th>metric</th><th>value</th></tr>\n";
  if (metrics.is_object()) {
    for (const auto& [key, value] : metrics.items()) {
      std::string v = value.is_string()
                          ? value.get<std::string>()
                          : value.dump(-1, ' ', false, Json::error_handler_t::replace);
      bool numeric = value.is_number();
      body += "<tr><td><code>" + html_escape(key) + "</code></td><td" +
              (numeric ? " class=\"num\"" : "") + ">" + html_escape(v) + "</td></tr>\n";
    }
  }
  body += "</table>\n";
  return html_page(r.event + " " + d.key, body, footer());
}

void Builder::handle(const TraceRecord& r, tracelog::TraceReader& reader) {
  const std::string& e = r.event;
  if (!r.stack.empty()) {
    TrieNode* at = &unknown_trie_;
    for (const std::string& f : frames_of(r.stack, reader)) at = at->child(f);
  }
  if (e == "chromium_event") {
    // No page and no raw.jsonl line, but its compile is in the directory (as tlparse lists it).
    (void)dir_for(r.compile_id.value_or(CompileId{}));
    Json event = Json::parse(r.payload, nullptr, false);
    if (!event.is_discarded()) {
      chromium_ << (chromium_count_++ ? ",\n" : "\n")
                << event.dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    return;
  }
  // tlparse reads a missing compile id as one with every part missing: `[-/-]`, folder
  // `-_-_-_-/`, numbered like the rest.
  const CompileId id = r.compile_id.value_or(CompileId{});
  if (!r.compile_id) ++result_->without_compile_id;
  size_t di = dir_for(id);
  dirs_[di].has_records = true;
  std::string folder = id.normalized().directory_name();
  Json meta = Json::parse(r.metadata.empty() ? "{}" : r.metadata, nullptr, false);
  auto meta_string = [&](const char* key) -> std::string {
    return meta.is_object() && meta.contains(key) && meta[key].is_string()
               ? meta[key].get<std::string>()
               : "";
  };
  std::optional<std::string> payload_file;
  if (options_.inductor_provenance) keep_provenance(r, meta_string("name"), dirs_[di].provenance);
  if (options_.export_mode && handle_export(r, meta, reader, di, folder)) {
    return;
  } else if (options_.export_mode && e != "exported_program" && !is_metrics(e)) {
    // tlparse's export mode reads the exported program and the export problems only: other
    // payloads are kept in payloads/.
  } else if (is_graph_dump(e) && (options_.export_mode || e != "exported_program")) {
    // (Outside export mode tlparse does not read exported programs: their payload goes to
    // payloads/ like any record it has no page for.)
    std::string name = e;
    if (e == "optimize_ddp_split_child") name += "_" + meta_string("name");
    if (e == "graph_dump") name = meta_string("name").empty() ? e : meta_string("name");
    std::string stem = numbered(folder, name, "");
    std::string detail = human_bytes(r.payload.size());
    std::optional<std::string> readable;
    CompileDir& d = dirs_[di];
    if (is_fx_graph(e)) {
      std::vector<GraphLine> nodes = graph_lines(r.payload);
      detail = std::to_string(nodes.size()) + " nodes, " + detail;
      readable = stem + ".html";
      std::string title = name + " " + d.key;
      if (e == "aot_joint_graph") {
        joints_.push_back(
            {di, std::move(title), stem + ".txt", *readable, r.payload, std::move(nodes)});
      } else {
        write_graph_page(title, r.payload, nodes, std::nullopt, stem + ".txt", *readable);
        if (e == "aot_forward_graph" || e == "aot_backward_graph") {
          auto& set = e == "aot_forward_graph" ? d.marks.forward : d.marks.backward;
          for (const GraphLine& g : nodes) set.insert(g.name);
          (e == "aot_forward_graph" ? d.forward_lines : d.backward_lines) = std::move(nodes);
          (e == "aot_forward_graph" ? d.forward_text : d.backward_text) = r.payload;
        }
      }
    }
    payload_file = stem + ".txt";
    add_file(di, stem + ".txt", r.payload, detail, readable);
  } else if (e == "inductor_output_code" && options_.plain_text) {
    std::string stem = fs::path(meta_string("filename")).stem().string();
    std::string rel = numbered(
        folder, stem.empty() ? "inductor_output_code" : "inductor_output_code_" + stem, ".txt");
    payload_file = rel;
    add_file(di, rel, r.payload);
  } else if (e == "inductor_output_code") {
    std::string filename = meta_string("filename");
    std::string stem = fs::path(filename).stem().string();
    std::string rel = numbered(
        folder, stem.empty() ? "inductor_output_code" : "inductor_output_code_" + stem, ".html");
    std::string body = "<h1>" + html_escape(filename.empty() ? "inductor output code" : filename) +
                       "</h1>\n" + highlight_python(r.payload);
    // An HTML page is not the payload: that goes to payloads/<md5>.txt, as tlparse does.
    add_file(di, rel, html_page("inductor_output_code", body, footer()),
             std::to_string(std::count(r.payload.begin(), r.payload.end(), '\n') + 1) + " lines, " +
                 human_bytes(r.payload.size()));
  } else if (e == "dynamo_guards") {
    Json guards = Json::parse(r.payload, nullptr, false);
    if (!guards.is_array()) {
      ++result_->fail_dynamo_guards_json;
    } else {
      std::string body = "<h1>Guards " + html_escape(dirs_[di].key) + "</h1>\n<ul>";
      for (const Json& g : guards) {
        std::string code = g.is_object() && g.contains("code") && g["code"].is_string()
                               ? g["code"].get<std::string>()
                               : g.dump();
        body += "<li><code>" + html_escape(code) + "</code></li>";
      }
      body += "</ul>";
      std::string rel = numbered(folder, "dynamo_guards", ".html");
      add_file(di, rel, html_page("dynamo_guards", body, footer()),
               std::to_string(guards.size()) + " guards");
    }
  } else if (e == "artifact") {
    std::string name = meta_string("name"), encoding = meta_string("encoding");
    if (name.empty()) name = "artifact";
    if (encoding == "json") {
      // Pretty-printed; a payload that is not JSON is written as it came (tlparse does the same).
      Json value = Json::parse(r.payload, nullptr, false);
      std::string rel = numbered(folder, name, ".json");
      payload_file = rel;
      std::optional<std::string> readable;
      std::string text = value.is_discarded()
                             ? r.payload
                             : value.dump(2, ' ', false, Json::error_handler_t::replace);
      if (name == kPartitionArtifact && !value.is_discarded()) {
        // The partition as tables beside its JSON (the page sits in the compile's folder too).
        readable = numbered(folder, name, ".html");
        Expected<records::PartitionRecord> record = records::read_partition_record(
            r.payload, fmt::format("{}:{} (remat_partition)", log_path_, r.lineno));
        std::string body;
        if (record) {
          // Node names link to the compile's joint graph page, logged before the record.
          std::optional<NodeLinks> links;
          for (const PendingJoint& g : joints_) {
            if (g.dir != di) continue;
            links.emplace();
            links->page = fs::path(g.html).filename().string();
            for (const GraphLine& n : g.nodes) links->line_of.try_emplace(n.name, n.line + 1);
          }
          body = partition_page(*record, dirs_[di].key, links ? &*links : nullptr, kGlossaryLink);
          dirs_[di].partition = std::move(*record);
          dirs_[di].partition_page = *readable;
        } else {
          ++result_->fail_parser;
          body = "<h1>Partition " + html_escape(dirs_[di].key) +
                 "</h1>\n<p class=\"error\" id=\"record-error\">This partition record could not "
                 "be read, so the compile's graphs are shown without its marks: <code>" +
                 html_escape(record.errors().front().format()) + "</code></p>\n";
        }
        write(*readable, html_page("remat partition " + dirs_[di].key, body, footer()));
      } else if (name == "inductor_graph_execution") {
        if (value.is_object() && value.contains("graph") && value["graph"].is_string())
          result_->executions.add(value["graph"].get<std::string>());
      } else if (name == kKernelStackTraces) {
        // tlparse's `<stem>_readable.html`: each kernel and the stack traces of the nodes it came
        // from. Like tlparse, the page takes a number of its own, so the JSON is listed one later.
        readable = numbered(folder, name, "_readable.html");
        write(*readable, kernel_stack_traces_page(value));
        ++counter_;
      }
      add_file(di, rel, text,
               name == kPartitionArtifact && dirs_[di].partition
                   ? "the partition: saved activations, recomputations, pictures"
                   : "",
               std::move(readable));
    } else {
      std::string rel = numbered(folder, name, ".txt");
      payload_file = rel;
      add_file(di, rel, r.payload);
    }
  } else if (is_metrics(e)) {
    CompileDir& d = dirs_[di];
    std::string rel = numbered(folder, e, ".html");
    if (e == "compilation_metrics" && meta.is_object()) {
      d.has_metrics = true;
      std::string link = "<a href=\"" + html_escape(rel) + "\">" + html_escape(d.key) + "</a>";
      if (meta.contains("restart_reasons") && meta["restart_reasons"].is_array()) {
        for (const Json& reason : meta["restart_reasons"]) {
          failures_.emplace_back(
              link,
              "<td>RestartAnalysis</td><td>" +
                  html_escape(reason.is_string() ? reason.get<std::string>() : reason.dump()) +
                  "</td><td></td>");
        }
      }
      std::string fail_type = meta_string("fail_type");
      if (!fail_type.empty()) {
        std::string source = meta_string("fail_user_frame_filename");
        int64_t line = meta.contains("fail_user_frame_lineno") &&
                               meta["fail_user_frame_lineno"].is_number_integer()
                           ? meta["fail_user_frame_lineno"].get<int64_t>()
                           : 0;
        d.failure = fail_type;
        failures_.emplace_back(
            link, "<td>" + html_escape(fail_type) + "</td><td>" +
                      html_escape(meta_string("fail_reason")) + "</td><td>" +
                      html_escape(source.empty() ? "N/A" : source + ":" + std::to_string(line)) +
                      "</td>");
      }
    }
    add_file(di, rel, metrics_page(r, d, meta));
    if (e == "compilation_metrics") finish_compile(di);
  } else if (e == "link") {
    OutputFile f;
    f.url = meta_string("url");
    f.name = meta_string("name");
    f.number = counter_++;
    f.detail = "link";
    dirs_[di].files.push_back(std::move(f));
  } else if (e == "dump_file") {
    std::string name = meta_string("name");
    std::string stem = fs::path(name).stem().string();
    if (stem.empty()) stem = "dump";
    std::string rel = "dump_file/" + stem + ".html";
    add_file(di, rel,
             html_page(name, "<h1>" + html_escape(name) + "</h1>\n" + highlight_python(r.payload),
                       footer()));
  } else if (e == "dynamo_start") {
    if (meta.is_object() && meta.contains("stack")) {
      std::vector<std::string> frames = frames_of(meta["stack"].dump(), reader);
      TrieNode* at = &trie_;
      for (const std::string& f : frames) at = at->child(f);
      at->compiles.push_back(di);
      dirs_[di].stack = std::move(frames);
    }
  }
  if (!payload_file && r.has_payload && !r.payload.empty()) {
    payload_file = "payloads/" + *r.has_payload + ".txt";
    write(*payload_file, r.payload);
  }
  raw_jsonl(r, payload_file);
}

void Builder::write_graph_page(std::string title, std::string text, std::vector<GraphLine> nodes,
                               std::optional<PartitionMarks> marks, const std::string& txt,
                               const std::string& html) {
  size_t bytes = 4 * text.size();  // the text, and the page it becomes
  files_.write(
      html,
      [title = std::move(title), text = std::move(text), nodes = std::move(nodes),
       marks = std::move(marks), text_url = fs::path(txt).filename().string(), footer = footer()] {
        std::string page;
        page.reserve(3 * text.size());
        append_page_head(page, title);
        append_graph_html(page, title, text, nodes, marks ? &*marks : nullptr, text_url);
        append_page_tail(page, footer);
        return page;
      },
      bytes);
  result_->files.push_back(html);
}

void Builder::finish_compile(size_t di) {
  CompileDir& d = dirs_[di];
  if (!d.partition) {
    // PyTorch's own logs: what its partitioner did, read off the graphs it logged.
    if (!d.forward_lines.empty() && !d.backward_lines.empty())
      d.marks = marks_from_graphs(d.forward_lines, d.backward_lines);
  } else {
    PartitionMarks record = marks_from_record(*d.partition);
    record.forward = std::move(d.marks.forward);
    record.backward = std::move(d.marks.backward);
    d.marks = std::move(record);
    if (d.partition->charts) d.marks.pictures = fs::path(d.partition_page).filename().string();
  }
  bool has_marks = !d.marks.saved.empty() || !d.marks.recomputed.empty();
  if (has_marks)
    d.summary = PartitionSummary{d.key, d.marks.saved, d.marks.recomputed, d.marks.source};
  if (has_marks && !d.partition) {
    // PyTorch's partition, read off its graphs: a page like remat's record gets, with the memory
    // timeline and the region map the text gives.
    const PendingJoint* joint = nullptr;
    for (const PendingJoint& g : joints_)
      if (g.dir == di && joint == nullptr) joint = &g;
    records::PartitionRecord record =
        derived_record(d.marks, {d.forward_text, &d.forward_lines},
                       {d.backward_text, &d.backward_lines}, joint ? &joint->nodes : nullptr);
    std::optional<NodeLinks> links;
    if (joint) {
      links.emplace();
      links->page = fs::path(joint->html).filename().string();
      for (const GraphLine& n : joint->nodes) links->line_of.try_emplace(n.name, n.line + 1);
    }
    d.derived_page = d.anchor + "/pytorch_partition.html";
    write(d.derived_page,
          html_page("partition " + d.key,
                    partition_page(record, d.key, links ? &*links : nullptr, kGlossaryLink),
                    footer()));
    record.charts.reset();
    d.derived = std::move(record);
    d.marks.pictures = fs::path(d.derived_page).filename().string();
  }
  for (PendingJoint& g : joints_) {
    if (g.dir != di) continue;
    std::optional<PartitionMarks> marks;
    if (has_marks) {
      marks = d.marks;
      marks->joint_forward = joint_forward_nodes(g.text, g.nodes);
      marks->glossary = kGlossaryLink;
    }
    write_graph_page(std::move(g.title), std::move(g.text), std::move(g.nodes), std::move(marks),
                     g.txt, g.html);
  }
  std::erase_if(joints_, [&](const PendingJoint& g) { return g.dir == di; });
  // What a later record of this compile could still use is its summary and the partition record.
  // (Moved-from temporaries: `v = {}` would keep the vectors' capacity.)
  d.marks = PartitionMarks();
  d.forward_lines = std::vector<GraphLine>();
  d.backward_lines = std::vector<GraphLine>();
  d.forward_text = std::string();
  d.backward_text = std::string();
}

bool Builder::handle_export(const TraceRecord& r, const Json& meta, tracelog::TraceReader& reader,
                            size_t dir, const std::string& folder) {
  const std::string& e = r.event;
  if (e == "expression_created" || e == "create_unbacked_symbol") {
    index_sym_expr(e, meta, sym_exprs_);
    raw_jsonl(r, std::nullopt);
    return true;
  }
  if (e == "guard_added" && !has_symbolic_guard_page(e, meta)) {
    raw_jsonl(r, std::nullopt);  // a guard export did not evaluate: nothing to show
    return true;
  }
  if (e == "exported_program") {
    exported_program_ = numbered(folder, "exported_program", ".txt");
    return false;  // filed as a graph dump
  }
  std::string page;
  if (has_symbolic_guard_page(e, meta)) {
    page = numbered(folder, "symbolic_guard_information", ".html");
    auto stack = [&](const char* key) {
      return meta.contains(key) ? frames_of(meta[key].dump(), reader) : std::vector<std::string>{};
    };
    add_file(dir, page,
             html_page("symbolic guard",
                       symbolic_guard_body(meta, stack("user_stack"), stack("stack"), sym_exprs_),
                       footer()));
  }
  std::optional<ExportFailure> failure = export_failure(e, meta, page);
  if (!failure) return false;
  export_failures_.push_back(std::move(*failure));
  raw_jsonl(r, std::nullopt);
  return true;
}

void render_trie(const TrieNode& node, const std::vector<CompileDir>& dirs, std::string& out) {
  if (node.children.empty() && node.compiles.empty()) return;
  out += "<ul class=\"trie\">";
  for (size_t c : node.compiles) {
    const CompileDir& d = dirs[c];
    const char* cls = d.failure ? "status-fail" : d.has_metrics ? "status-ok" : "status-missing";
    out += "<li><a class=\"" + std::string(cls) + "\" href=\"#" + html_escape(d.anchor) + "\">" +
           html_escape(d.key) + "</a></li>";
  }
  for (const auto& [text, child] : node.children) {
    out += "<li><code>" + html_escape(text) + "</code>";
    render_trie(*child, dirs, out);
    out += "</li>";
  }
  out += "</ul>";
}

std::string Builder::index_page(const tracelog::TraceReader& reader) {
  const tracelog::TraceStats& s = reader.stats();
  std::string body = "<h1>Compilation report</h1>\n";
  if (std::ranges::none_of(dirs_, &CompileDir::has_records)) {
    body += "<p id=\"no-compile-events\"><b>No compile events in this log</b> (" +
            html_escape(s.describe()) +
            "): it holds no record of a compilation, so there is nothing to show. Is it a "
            "TORCH_TRACE log?</p>\n";
  }
  body +=
      "<p>Each compile id below is one compilation: the graph captured from the user's code, the "
      "joint "
      "forward+backward graph AOTAutograd built from it, its partition into a forward graph (what "
      "runs now "
      "and which activations it saves) and a backward graph (what it recomputes), then what the "
      "backend made "
      "of them. Graph pages color each checkpoint region (<code>ac_graph_id</code>) and, where a "
      "partition was "
      "logged, mark every joint-graph node saved, recomputed, forward only or backward only.</p>\n";
  // What the user came for first: what each compile saved for the backward, and why.
  bool any_partition = false;
  for (const CompileDir& d : dirs_) any_partition = any_partition || d.partition || d.derived;
  if (any_partition) {
    body +=
        "<h2>Partitions</h2>\n<p>What each compile keeps for the backward: the activations "
        "(what checkpointing and the memory budget act on) and what the backward computes again. "
        "Each partition's page shows memory over the step, the budget curve and where the "
        "checkpoint regions are, and says why each value is saved or recomputed (<a "
        "id=\"glossary-link\" href=\"glossary.html\">what each reason means, and what to "
        "change</a>).</p>\n";
    for (const CompileDir& d : dirs_) {
      if (!d.partition && !d.derived) continue;
      const records::PartitionRecord& p = d.partition ? *d.partition : *d.derived;
      const std::string& page = d.partition ? d.partition_page : d.derived_page;
      body += "<h3 class=\"partition-head\"><a href=\"#" + html_escape(d.anchor) + "\">" +
              html_escape(d.key) + "</a> <a class=\"partition-page\" href=\"" + html_escape(page) +
              "\">" + (d.derived ? "PyTorch's partition, read off its graphs" : "its partition") +
              ": what is saved and why, with pictures</a></h3>\n<p class=\"partition-line\">" +
              partition_sentence(p) + "</p>\n" + partition_summary(p) + "\n";
    }
  } else if (std::ranges::any_of(dirs_, &CompileDir::has_records)) {
    body +=
        "<h2>Partitions</h2>\n<p id=\"no-partitions\">No compile in this log was partitioned "
        "into a forward and a backward graph, so there is no saved or recomputed value to show: "
        "it logged no <code>aot_forward_graph</code>/<code>aot_backward_graph</code> pair and no "
        "partition record (an inference-only compile, or one whose backward never ran). Log a "
        "training step: run the forward <em>and</em> <code>loss.backward()</code> under "
        "<code>TORCH_TRACE</code> (with <code>remat.partition_fn</code> for the reasons), or "
        "give <code>remat report</code> a joint graph file.</p>\n";
  }
  body += "<h2>Stack trie</h2>\n<div id=\"stack-trie\">";
  render_trie(trie_, dirs_, body);
  body += "</div>\n";
  if (!unknown_trie_.children.empty()) {
    body += "<h2>Unknown stacks</h2>\n<div id=\"unknown-stack-trie\">";
    render_trie(unknown_trie_, dirs_, body);
    body += "</div>\n";
  }
  body +=
      "<h2>Failures and restarts</h2>\n<p><a id=\"failures-link\" "
      "href=\"failures_and_restarts.html\">" +
      std::to_string(failures_.size()) +
      (failures_.size() == 1 ? " failure or restart" : " failures and restarts") + "</a></p>\n";
  body += "<h2>IR dumps</h2>\n<ul id=\"compile-directory\">\n";
  for (const CompileDir& d : dirs_) {
    if (d.files.empty()) continue;
    body += "<li id=\"" + html_escape(d.anchor) + "\"><b>" + html_escape(d.key) + "</b>";
    if (!d.provenance_page.empty())
      body += " <a class=\"provenance\" href=\"" + html_escape(d.provenance_page) +
              "\">provenance tracking</a>";
    body += "\n<ul>\n";
    for (const OutputFile& f : d.files) {
      // The page a link opens is the name it shows; the file it was made from is beside it.
      std::string href = f.readable_url.value_or(f.url);
      body += "<li class=\"artifact\"><a href=\"" + html_escape(href) + "\">" +
              html_escape(f.readable_url ? *f.readable_url : f.name) + "</a> " +
              html_escape(f.suffix) + " (" + std::to_string(f.number) + ") <span class=\"meta\">" +
              html_escape(f.detail) + "</span>";
      if (f.readable_url) {
        body += " <a class=\"meta\" href=\"" + html_escape(f.url) + "\">[" +
                (f.url.ends_with(".json") ? "json" : "text") + "]</a>";
      }
      body += "</li>\n";
    }
    body += "</ul></li>\n";
  }
  body += "</ul>\n";
  body += "<h2>Log</h2>\n<p class=\"meta\" id=\"log-stats\">" + html_escape(s.describe()) +
          " (tlparse: " + html_escape(s.summary()) + "), " + std::to_string(s.str) +
          " interned strings. <a href=\"raw.jsonl\">raw.jsonl</a> &middot; <a "
          "href=\"raw.log\">raw.log</a>";
  if (chromium_count_)
    body +=
        " &middot; <a href=\"chromium_events.json\">chromium_events.json</a> (open in Perfetto)";
  body += "</p>\n";
  return html_page("Compilation report", body, footer());
}

Status Builder::run(tracelog::TraceReader& reader, const std::string& log_path,
                    ReportResult& result) {
  result_ = &result;
  log_path_ = log_path;
  raw_.open(fs::path(out_) / "raw.jsonl.part", std::ios::binary);
  chromium_.open(fs::path(out_) / "chromium_events.json", std::ios::binary);
  if (!raw_ || !chromium_) return file_error(out_, "cannot write into the output folder");
  chromium_ << "[";
  TraceRecord r;
  uint64_t next_progress = 64 << 20;
  while (reader.next(r)) {
    handle(r, reader);
    if (options_.progress && reader.bytes_read() >= next_progress) {
      options_.progress(reader.bytes_read(), reader.file_size());
      next_progress += 64 << 20;
    }
  }
  result.compile_ids = std::ranges::count_if(dirs_, &CompileDir::has_records);
  chromium_ << (chromium_count_ ? "\n]\n" : "]\n");
  chromium_.close();
  result.files.push_back("chromium_events.json");
  // Compiles the log ended in: their marks and joint graphs.
  for (size_t di = 0; di < dirs_.size(); ++di) {
    finish_compile(di);
  }
  for (const CompileDir& d : dirs_) {
    if (d.summary) result.partitions.push_back(*d.summary);
  }
  for (CompileDir& d : dirs_) {
    // tlparse writes the page for every compile in provenance mode, mappings or none.
    if (!options_.inductor_provenance) continue;
    d.provenance_page = "provenance_tracking_" + d.anchor + ".html";
    std::string page =
        html_page("provenance " + d.key, provenance_page_body(d.provenance, d.key), footer());
    write(d.provenance_page, std::move(page));
  }
  // Failures.
  std::string fbody =
      "<h1>Failures and restarts</h1>\n<table id=\"failures\"><tr><th>Compile Id</th><th>Failure "
      "Type</th><th>Description</th><th>Source</th></tr>\n";
  for (const auto& [link, cells] : failures_)
    fbody += "<tr><td>" + link + "</td>" + cells + "</tr>\n";
  fbody += "</table>\n";
  write("failures_and_restarts.html", html_page("Failures and restarts", fbody, footer()));
  if (std::ranges::any_of(dirs_, [](const CompileDir& d) { return d.partition || d.derived; })) {
    write(std::string(kGlossaryPage),
          html_page("Why saved, why recomputed", glossary_body(), footer()));
  }
  // compile_directory.json
  Json directory = Json::object();
  for (const CompileDir& d : dirs_) {
    Json artifacts = Json::array();
    for (const OutputFile& f : d.files) {
      std::string name =
          f.name.substr(f.name.rfind('/') == std::string::npos ? 0 : f.name.rfind('/') + 1);
      artifacts.push_back(
          {{"url", f.url},
           {"name", name},
           {"number", f.number},
           {"suffix", f.suffix},
           {"readable_url", f.readable_url ? Json(*f.readable_url) : Json(nullptr)}});
    }
    directory[d.key] = {{"artifacts", artifacts}};
  }
  write("compile_directory.json",
        directory.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  result.export_failures = export_failures_.size();
  std::string index =
      options_.export_mode
          ? html_page("export report", export_index_body(export_failures_, exported_program_),
                      footer())
          : index_page(reader);
  write("index.html", std::move(index));
  // raw.jsonl: the string table first, known only now.
  raw_.close();
  Json table = Json::array();
  for (const auto& entry : reader.string_table())
    table.push_back(entry ? Json(*entry) : Json(nullptr));
  {
    std::ofstream out(fs::path(out_) / "raw.jsonl", std::ios::binary);
    out << Json{{"string_table", table}}.dump(-1, ' ', false, Json::error_handler_t::replace)
        << '\n';
    std::ifstream part(fs::path(out_) / "raw.jsonl.part", std::ios::binary);
    // (Streaming an empty buffer sets failbit: a log with no records is not a write error.)
    if (part.peek() != std::ifstream::traits_type::eof()) out << part.rdbuf();
    if (!out) return error_message(out_ + "/raw.jsonl: cannot write");
  }
  fs::remove(fs::path(out_) / "raw.jsonl.part");
  result.files.push_back("raw.jsonl");
  std::error_code ec;
  fs::copy_file(log_path, fs::path(out_) / "raw.log", fs::copy_options::overwrite_existing, ec);
  if (ec) return error_message(out_ + "/raw.log: " + ec.message());
  result.files.push_back("raw.log");
  return files_.finish();
}

}  // namespace

void GraphExecutions::add(std::string_view graph) {
  for (char c : graph) digest = (digest ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  digest =
      (digest ^ 0xffu) * 1099511628211ull;  // a separator no name holds: "ab","c" is not "a","bc"
  if (first.size() < kKept) first.emplace_back(graph);
  ++count;
}

Expected<std::string> resolve_log(const std::string& path, bool latest) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) return file_error(path, "no such file or folder");
    return path;
  }
  std::vector<fs::path> logs;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".log") logs.push_back(entry.path());
  }
  if (logs.empty()) return file_error(path, "no .log file in this folder");
  std::sort(logs.begin(), logs.end());
  if (logs.size() == 1) return logs[0].string();
  if (!latest) {
    return file_error(path, std::to_string(logs.size()) +
                                " logs in this folder; name one, or pass --latest for the newest");
  }
  auto newest =
      std::max_element(logs.begin(), logs.end(), [](const fs::path& a, const fs::path& b) {
        std::error_code e;
        return fs::last_write_time(a, e) < fs::last_write_time(b, e);
      });
  return newest->string();
}

Status write_whole_folder(const std::string& out_dir, bool overwrite,
                          const std::function<Status(const std::string&)>& fill) {
  std::error_code ec;
  fs::path out = fs::path(out_dir).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  if (fs::exists(out, ec) && !overwrite)
    return file_error(out_dir, "already exists (pass --overwrite to replace it)");
  // Errors name the folder the user asked for, never the temporary one beside it.
  fs::path temp = out;
  temp += ".remat-tmp-" + std::to_string(::getpid());
  fs::remove_all(temp, ec);
  if (!fs::create_directories(temp, ec) || ec) {
    return file_error(
        out_dir, "cannot create the output folder" + (ec ? ": " + ec.message() : std::string()));
  }
  if (Status s = fill(temp.string()); !s.ok()) {
    fs::remove_all(temp, ec);
    return s;
  }
  if (fs::exists(out, ec)) {
    fs::remove_all(out, ec);
    if (ec) {
      std::string why = ec.message();
      fs::remove_all(temp, ec);
      return file_error(out_dir, "cannot replace it: " + why);
    }
  }
  fs::rename(temp, out, ec);
  if (ec) {
    std::string why = ec.message();
    fs::remove_all(temp, ec);
    return file_error(out_dir, "cannot move the finished report into place: " + why);
  }
  return {};
}

Status check_strictness(const std::string& log_path, const ReportResult& r, bool strict,
                        bool strict_compile_id) {
  if (strict && r.stats.failures() + r.fail_parser + r.fail_dynamo_guards_json > 0) {
    Diagnostics errors;
    for (const std::string& p : r.problems) {
      size_t colon = p.find(": ");
      Diagnostic d;
      d.file = log_path;
      d.line = std::stoi(p.substr(0, colon));
      d.message = p.substr(colon + 2);
      errors.push_back(std::move(d));
    }
    errors.push_back(error_message(
        log_path + ": --strict: " + r.stats.describe() +
        (r.fail_parser ? ", " + std::to_string(r.fail_parser) + " payloads no page could render"
                       : "") +
        (r.fail_dynamo_guards_json ? ", " + std::to_string(r.fail_dynamo_guards_json) +
                                         " dynamo_guards payloads that are not JSON"
                                   : "")));
    return errors;
  }
  if (strict_compile_id && r.without_compile_id > 0) {
    return error_message(log_path +
                         ": --strict-compile-id: " + std::to_string(r.without_compile_id) +
                         " records were logged outside any compile (no compile id)");
  }
  return {};
}

Expected<ReportResult> write_report_folder(const std::string& log_path, const std::string& out_dir,
                                           const ReportOptions& options, bool overwrite,
                                           bool strict) {
  std::optional<ReportResult> result;
  Status s = write_whole_folder(out_dir, overwrite, [&](const std::string& temp) -> Status {
    auto r = write_report(log_path, temp, options);
    REMAT_TRY(r);
    if (Status c = check_strictness(log_path, *r, strict, options.strict_compile_id); !c.ok())
      return c;
    result = std::move(*r);
    return {};
  });
  if (!s.ok()) return s.errors();
  return std::move(*result);
}

Expected<ReportResult> write_report(const std::string& log_path, const std::string& out_dir,
                                    const ReportOptions& options) {
  auto reader = tracelog::TraceReader::open(log_path);
  REMAT_TRY(reader);
  ReportResult result;
  Builder builder(out_dir, options);
  if (Status s = builder.run(**reader, log_path, result); !s.ok()) return s.errors();
  result.stats = (*reader)->stats();
  result.unknown_fields = (*reader)->unknown_fields();
  result.problems = (*reader)->problems();
  std::sort(result.files.begin(), result.files.end());
  return result;
}

}  // namespace remat::report
