#include "remat/driver/check_run.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <absl/container/flat_hash_map.h>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "remat/partition/memory_timeline.h"
#include "remat/support/file_io.h"
#include "remat/support/json_reader.h"

extern char** environ;

namespace remat::driver {
namespace {

struct Ran {
  int exit_code = -1;  ///< -1: it did not run, or did not exit
  std::string out;     ///< its stdout
};

Ran run_process(const std::string& executable, std::vector<std::string> args) {
  Ran run;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return run;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned == 0) {
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0)
      run.out.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  if (spawned != 0) return run;
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace

Expected<CheckOutcome> read_check_result(std::string_view text, const std::string& file) {
  json::JsonReader r(file);
  std::optional<json::dom::element> root = r.parse(text);
  if (!root) return r.error();
  json::JsonPath top;
  json::dom::object obj;
  if (!r.get_object(*root, top, obj)) return r.error();
  auto field = [](json::dom::object o, const char* key) -> std::optional<json::dom::element> {
    json::dom::element e;
    if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
    return e;
  };
  // The four numbers say it is a result; non-finite errors are written as "inf" or "nan".
  std::optional<json::dom::element> values = field(obj, "values"),
                                    beyond = field(obj, "beyond_tolerance"),
                                    abs_error = field(obj, "max_abs_error"),
                                    rel_error = field(obj, "max_rel_error");
  for (const auto& [key, e] :
       {std::pair{"values", values}, std::pair{"beyond_tolerance", beyond},
        std::pair{"max_abs_error", abs_error}, std::pair{"max_rel_error", rel_error}}) {
    if (!e) return file_error(file, std::string("not a remat-check result (no \"") + key + "\")");
  }
  CheckOutcome outcome;
  json::JsonPath values_path = top.field("values"), beyond_path = top.field("beyond_tolerance"),
                 abs_path = top.field("max_abs_error"), rel_path = top.field("max_rel_error");
  if (!r.get_int(*values, values_path, outcome.values) ||
      !r.get_int(*beyond, beyond_path, outcome.beyond_tolerance) ||
      !r.get_number(*abs_error, abs_path, outcome.max_abs_error) ||
      !r.get_number(*rel_error, rel_path, outcome.max_rel_error))
    return r.error();
  outcome.ok = outcome.beyond_tolerance == 0;
  std::optional<json::dom::element> memory = field(obj, "memory");
  if (!memory) return outcome;
  json::JsonPath steps = top.field("memory");
  json::dom::array arr;
  if (!r.get_array(*memory, steps, arr)) return r.error();
  size_t i = 0;
  for (json::dom::element e : arr) {
    json::JsonPath at = steps.at(i++);
    json::dom::object step;
    if (!r.get_object(e, at, step)) return r.error();
    std::optional<json::dom::element> node = field(step, "node"), live = field(step, "live"),
                                      backward = field(step, "backward");
    if (!node || !live) return r.error_at(at, "a memory step without its node or live bytes");
    std::string_view name;
    CheckOutcome::Measured m;
    json::JsonPath node_path = at.field("node"), live_path = at.field("live"),
                   backward_path = at.field("backward");
    if (!r.get_string(*node, node_path, name) || !r.get_int(*live, live_path, m.live) ||
        (backward && !r.get_bool(*backward, backward_path, m.backward)))
      return r.error();
    m.node = std::string(name);
    outcome.memory.push_back(std::move(m));
  }
  return outcome;
}

records::TimelineCurve measured_curve(const ForwardBackward& graphs,
                                      const std::vector<CheckOutcome::Measured>& memory) {
  partition::MemoryTimeline timeline = partition::memory_timeline(graphs);
  absl::flat_hash_map<std::pair<bool, std::string_view>, int64_t> measured;
  for (const CheckOutcome::Measured& m : memory) measured[{m.backward, m.node}] = m.live;
  std::vector<records::CurveStep> steps;
  std::optional<int64_t> last;
  for (size_t i = 0; i < timeline.steps.size(); ++i) {
    const partition::LiveStep& s = timeline.steps[i];
    std::string_view node = s.node ? std::string_view(s.node->name()) : std::string_view();
    auto it = measured.find({i >= timeline.forward_steps, node});
    if (it != measured.end()) last = it->second;
    // Before the first node runs, nothing was measured: the inputs are what the estimate holds.
    steps.push_back({node, 0, last.value_or(s.live)});
  }
  return records::memory_curve("measured: the real tensors, by remat check", steps,
                               timeline.forward_steps);
}

Expected<CheckOutcome> run_check(const std::string& executable, const std::string& joint,
                                 const std::string& forward, const std::string& backward,
                                 const std::string& result_file) {
  ::unlink(result_file.c_str());  // a result left by an earlier run must not be read
  Ran ran = run_process(executable, {"remat-check", "check", joint, "--fw", forward, "--bw",
                                     backward, "--memory", "--result", result_file});
  // remat check exits 0 when every value is within tolerance, 1 when some is not.
  if (ran.exit_code != 0 && ran.exit_code != 1) {
    return error_message("the numeric check (" + executable + ") " +
                         (ran.exit_code < 0
                              ? std::string("did not run")
                              : "failed with exit code " + std::to_string(ran.exit_code)));
  }
  Expected<std::string> text = read_file(result_file);
  REMAT_TRY(text);
  Expected<CheckOutcome> read = read_check_result(*text, result_file);
  REMAT_TRY(read);
  CheckOutcome outcome = std::move(*read);
  outcome.ok = outcome.beyond_tolerance == 0 && ran.exit_code == 0;
  outcome.text = std::move(ran.out);
  return outcome;
}

}  // namespace remat::driver
