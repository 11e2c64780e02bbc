#include "remat/trace/tracer.h"

#include "remat/ir/verify.h"
#include "remat/ops/op_builder.h"
#include "remat/ops/op_registry.h"
#include "remat/support/assert.h"
#include "remat/support/json_writer.h"
#include "remat/trace/source_frames.h"

namespace remat::trace {
namespace {

thread_local Tracer* active_tracer = nullptr;

std::string identifier(std::string_view qualified) {
  std::string out;
  for (char c : qualified)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "_");
  return out;
}

}  // namespace

Tracer::Tracer(TraceOptions options) : device_(options.device) {
  if (active_tracer) throw std::logic_error("a Tracer is already active on this thread");
  active_tracer = this;
  module_.graph_name = options.graph_name;
}

Tracer::~Tracer() {
  if (active_tracer == this) active_tracer = nullptr;
}

Tracer& Tracer::current() {
  if (!active_tracer)
    throw std::logic_error("no active Tracer: create a remat::trace::Tracer first");
  return *active_tracer;
}

Tensor Tracer::add_placeholder(std::string_view name, std::string_view desc,
                               const std::vector<int64_t>& sizes, DType dtype, bool requires_grad) {
  REMAT_ASSERT(!has_output_) << "placeholder after output()";
  Graph& g = module_.graph();
  // Placeholders go before the first op, as FX keeps them.
  g.set_insert_point(first_op_);
  Node* p = g.placeholder(identifier(name));
  g.set_insert_point(nullptr);
  std::vector<SymInt> s(sizes.begin(), sizes.end());
  TensorMeta t(dtype, s, TensorMeta::contiguous_strides(s), device_);
  t.requires_grad = requires_grad;
  p->meta.set_tensor(t);
  p->meta.set_value_key(ValueKey::Val);
  p->meta.set_desc(Argument::string(desc));
  return Tensor(this, p);
}

Tensor Tracer::input(std::string_view name, const std::vector<int64_t>& sizes, DType dtype,
                     bool requires_grad) {
  std::string desc = "PlainAOTInput(idx=" + std::to_string(num_inputs_++) + ")";
  return add_placeholder(name, desc, sizes, dtype, requires_grad);
}

Tensor Tracer::parameter(std::string_view name, const std::vector<int64_t>& sizes, DType dtype) {
  std::string q = qualified(name);
  return add_placeholder(q, "ParamAOTInput(target='" + q + "')", sizes, dtype, true);
}

Tensor Tracer::buffer(std::string_view name, const std::vector<int64_t>& sizes, DType dtype) {
  std::string q = qualified(name);
  return add_placeholder(q, "BufferAOTInput(target='" + q + "')", sizes, dtype, false);
}

void Tracer::output(const std::vector<Tensor>& outputs) {
  REMAT_ASSERT(!has_output_) << "output() called twice";
  std::vector<Argument> values, descs;
  for (const Tensor& t : outputs) {
    values.push_back(t.defined() ? t.arg() : Argument::none());
    descs.push_back(Argument::string("PlainAOTOutput(idx=" + std::to_string(descs.size()) + ")"));
  }
  Node* out = module_.graph().output(Argument::list(std::move(values)));
  out->meta.set_desc(Argument::list(std::move(descs)));
  has_output_ = true;
}

GraphModule Tracer::finish() {
  REMAT_ASSERT(has_output_) << "finish() before output()";
  REMAT_ASSERT(regions_.empty() && modules_.empty()) << "finish() inside a scope";
  Diagnostics problems = verify(module_);
  REMAT_ASSERT(problems.empty()) << "the tracer built an invalid graph:\n" << format_all(problems);
  if (active_tracer == this) active_tracer = nullptr;
  return std::move(module_);
}

std::string Tracer::qualified(std::string_view name) const {
  if (modules_.empty()) return std::string(name);
  return modules_.back().first + "." + std::string(name);
}

InternedString Tracer::stack_trace(const std::source_location& loc) {
  std::string trace;
  for (const std::string& f : frames_) trace += f;
  trace += traceback_frame(loc);
  return InternedString(trace);
}

std::vector<Tensor> Tracer::record(std::string_view target, std::vector<Argument> args,
                                   std::vector<Kwarg> kwargs, const std::source_location& loc) {
  const OpInfo* op = find_op(target);
  REMAT_ASSERT(op != nullptr) << "the tracer records an op the registry lacks: " << target;
  auto appended = append_op(module_.graph(), *op, std::move(args), std::move(kwargs));
  if (!appended) {
    throw TraceError(std::string(loc.file_name()) + ":" + std::to_string(loc.line()) + ": " +
                     appended.errors().front().message);
  }
  InternedString trace = stack_trace(loc);
  for (Node* n : appended->nodes) {
    n->meta.stack_trace = trace;
    if (!module_stack_json_.empty())
      n->meta.mutable_extras().push_back({"nn_module_stack", module_stack_json_});
  }
  if (!first_op_) first_op_ = appended->node;
  std::vector<Tensor> outputs;
  for (Node* n : appended->outputs) outputs.push_back(n ? Tensor(this, n) : Tensor());
  if (!regions_.empty()) tag(*op, appended->nodes, outputs);
  return outputs;
}

Tensor Tracer::record1(std::string_view target, std::vector<Argument> args,
                       std::vector<Kwarg> kwargs, const std::source_location& loc) {
  std::vector<Tensor> out = record(target, std::move(args), std::move(kwargs), loc);
  REMAT_ASSERT(out.size() == 1) << target << " has " << out.size() << " results";
  return out[0];
}

// Note [nested checkpoint regions]: the innermost region decides. Under torch.compile each
// region's caching mode stamps every node appended while the op ran, and the inner region's
// mode stamps last, so nodes of an inner region carry the inner region's id and policy. The
// outer region's call counts do not advance for ops of the inner one.
void Tracer::tag(const OpInfo& op, const std::vector<Node*>& nodes,
                 const std::vector<Tensor>& outputs) {
  Region& r = regions_.back();
  CheckpointPolicy policy = CheckpointPolicy::PreferRecompute;
  if (!is_sac_ignored(op.target)) {
    SacContext ctx;
    ctx.target = op.target;
    ctx.op = &op;
    ctx.call_index = r.call_counts[op.target]++;
    ctx.region_id = r.id;
    ctx.outputs = outputs;
    policy = (*r.policy)(ctx);
    tagged_.push_back({nodes, op.target, &op, ctx.call_index, r.id, r.policy, outputs});
    for (const Tensor& t : outputs) {
      if (t.defined()) tagged_by_node_[t.node()] = tagged_.size() - 1;
    }
  }
  for (Node* n : nodes) {
    n->meta.recompute = policy;
    n->meta.set_ac_graph_id(r.id);
  }
}

void Tracer::name_tensor(const Tensor& t, std::string_view name) {
  t.node()->meta.mutable_extras().push_back({"checkpoint_name", json::quoted(name)});
  auto it = tagged_by_node_.find(t.node());
  if (it == tagged_by_node_.end()) return;
  const TaggedOp& rec = tagged_[it->second];
  SacContext ctx;
  ctx.target = rec.target;
  ctx.op = rec.op;
  ctx.call_index = rec.call_index;
  ctx.region_id = rec.region_id;
  ctx.outputs = rec.outputs;
  ctx.tensor_name = name;
  CheckpointPolicy policy = (*rec.policy)(ctx);
  for (Node* n : rec.nodes) n->meta.recompute = policy;
}

void Tracer::enter_module(std::string_view name, std::string_view type_name,
                          const std::source_location& loc) {
  frames_.push_back(traceback_frame(loc));
  modules_.emplace_back(qualified(name), std::string(type_name));
  update_module_stack_json();
}

void Tracer::exit_module() {
  REMAT_ASSERT(!modules_.empty()) << "exit_module without a module";
  frames_.pop_back();
  modules_.pop_back();
  update_module_stack_json();
}

// nn_module_stack as torch.fx records it: {path: [path, type]} from the outermost scope.
void Tracer::update_module_stack_json() {
  module_stack_json_.clear();
  if (modules_.empty()) return;
  json::JsonWriter w(module_stack_json_);
  w.begin_object();
  for (const auto& [path, type] : modules_)
    w.key(path).begin_array().value(path).value(type).end_array();
  w.end_object();
}

int64_t Tracer::enter_region(std::shared_ptr<const SacPolicy> policy,
                             const std::source_location& loc) {
  frames_.push_back(traceback_frame(loc));
  regions_.push_back({next_region_id_++, std::move(policy), {}});
  return regions_.back().id;
}

void Tracer::exit_region() {
  REMAT_ASSERT(!regions_.empty()) << "exit_region without a region";
  frames_.pop_back();
  regions_.pop_back();
}

ModuleScope::ModuleScope(std::string_view name, std::string_view type_name,
                         std::source_location loc)
    : tracer_(Tracer::current()) {
  tracer_.enter_module(name, type_name, loc);
}

ModuleScope::~ModuleScope() {
  tracer_.exit_module();
}

}  // namespace remat::trace
