#include "remat/exec/interpreter.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/api/include/torch/version.h>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "remat/exec/aten_call.h"
#include "remat/ops/shape_rules.h"
#include "remat/support/json_reader.h"

namespace remat::exec {
namespace {

Diagnostic node_error(const Node& n, std::string message) {
  return error_message("node " + n.name() + " (" + std::string(n.target().view()) +
                       "): " + std::move(message));
}

std::optional<int64_t> as_int(const c10::IValue& v) {
  if (v.isInt()) return v.toInt();
  if (v.isBool()) return v.toBool() ? 1 : 0;
  return std::nullopt;
}

// The Python builtins FX graphs call: getitem and integer arithmetic on sizes.
Expected<c10::IValue> run_builtin(const Node& n, const std::vector<c10::IValue>& args) {
  std::string_view t = n.target().view();
  if (t == "operator.getitem") {
    if (args.size() != 2 || !args[1].isInt())
      return node_error(n, "getitem needs a container and an int");
    int64_t i = args[1].toInt();
    if (args[0].isTuple()) {
      const auto& elems = args[0].toTupleRef().elements();
      if (i < 0) i += static_cast<int64_t>(elems.size());
      if (i < 0 || i >= static_cast<int64_t>(elems.size()))
        return node_error(n, "index out of range");
      return elems[i];
    }
    if (args[0].isList()) {
      auto list = args[0].toListRef();
      if (i < 0) i += static_cast<int64_t>(list.size());
      if (i < 0 || i >= static_cast<int64_t>(list.size()))
        return node_error(n, "index out of range");
      return list[i];
    }
    return node_error(n, "getitem of a " + args[0].tagKind());
  }
  static const std::pair<std::string_view, int64_t (*)(int64_t, int64_t)> kBinary[] = {
      {"operator.add", [](int64_t a, int64_t b) { return a + b; }},
      {"operator.sub", [](int64_t a, int64_t b) { return a - b; }},
      {"operator.mul", [](int64_t a, int64_t b) { return a * b; }},
      {"operator.floordiv",
       [](int64_t a, int64_t b) {
         return b == 0 ? 0 : (a / b - ((a % b != 0) && ((a < 0) != (b < 0))));
       }},
      {"operator.mod", [](int64_t a, int64_t b) { return b == 0 ? 0 : ((a % b) + b) % b; }},
  };
  for (auto [name, fn] : kBinary) {
    if (t != name) continue;
    auto a = args.size() == 2 ? as_int(args[0]) : std::nullopt;
    auto b = args.size() == 2 ? as_int(args[1]) : std::nullopt;
    if (!a || !b) return node_error(n, "integer arithmetic on non-integers");
    return c10::IValue(fn(*a, *b));
  }
  if (t == "operator.neg" && args.size() == 1 && as_int(args[0]))
    return c10::IValue(-*as_int(args[0]));
  return node_error(n, "unsupported Python builtin " + std::string(t));
}

// The functional copy an item assignment becomes, and the scatters that write it back, return in
// PyTorch 2.x a tensor laid out as the view they change (strides included, dense or not: a select
// of a row); libtorch 1.13's return it contiguous.
c10::IValue with_the_strides_of(const c10::IValue& self, const c10::IValue& result) {
  if (!self.isTensor() || !result.isTensor()) return result;
  const at::Tensor& like = self.toTensor();
  const at::Tensor& r = result.toTensor();
  if (r.strides() == like.strides()) return result;
  at::Tensor laid_out = at::empty_strided(like.sizes(), like.strides(), r.options());
  laid_out.copy_(r);
  return laid_out;
}

// Plain values (no node references) as IValues: ints, floats, lists of them.
c10::IValue literal(const Argument& a) {
  switch (a.kind()) {
    case ArgKind::Int:
      return a.as_int();
    case ArgKind::Float:
      return a.as_float();
    case ArgKind::Bool:
      return a.as_bool();
    default:
      return c10::IValue();
  }
}

Status check_against_meta(const Node& n, const c10::IValue& v) {
  const TensorMeta* t = n.meta.tensor();
  if (!t || !v.isTensor()) return {};
  const at::Tensor& x = v.toTensor();
  auto want = shape_rules::concrete(*t);
  std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end());
  if (sizes != want.sizes) {
    return node_error(n, "computed sizes " + shape_rules::shape_text(sizes) +
                             " but the metadata says " + shape_rules::shape_text(want.sizes));
  }
  if (t->dtype != DType::Unknown && from_scalar_type(x.scalar_type()) != t->dtype) {
    return node_error(n, "computed dtype " +
                             std::string(dtype_name(from_scalar_type(x.scalar_type()))) +
                             " but the metadata says " + std::string(dtype_name(t->dtype)));
  }
  if (t->strides() && x.numel() > 1) {
    std::vector<int64_t> strides(x.strides().begin(), x.strides().end());
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == 1) strides[i] = want.strides[i] = 0;
    }
    if (strides != want.strides) {
      return node_error(n, "computed strides " + shape_rules::shape_text(strides) +
                               " but the metadata says " + shape_rules::shape_text(want.strides));
    }
  }
  return {};
}

// The RNG wrappers of recomputed random ops (docs/spec/partitioning.md §8.4):
// run_and_save_rng_state(op, *args) returns (the CPU generator's state before the op, the op's
// result); run_with_rng_state(state, op, *args) runs the op from that state and leaves the
// generator where it was.
Expected<c10::IValue> run_with_rng(const Node& n, bool with_state,
                                   const absl::flat_hash_map<const Node*, c10::IValue>& values) {
  std::span<const Argument> args = n.args();
  size_t op_at = with_state ? 1 : 0;
  if (args.size() <= op_at || !args[op_at].is(ArgKind::Op))
    return node_error(n, "expects an operator argument");
  auto op = find_aten_op(args[op_at].as_text());
  if (!op)
    return node_error(n,
                      "the installed ATen has no operator " + std::string(args[op_at].as_text()));
  auto value_of = [&](const Node* x) -> c10::IValue { return values.at(x); };
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  at::Tensor saved;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    saved = gen.get_state();
    if (with_state) {
      if (!args[0].is_node() || !values.at(args[0].as_node()).isTensor())
        return node_error(n, "expects an RNG state tensor");
      gen.set_state(values.at(args[0].as_node()).toTensor());
    }
  }
  auto out = call_aten(*op, args.subspan(op_at + 1), n.kwargs(), value_of, c10::Device(c10::kCPU));
  if (!out) return node_error(n, out.errors().front().message);
  c10::IValue result = op->schema().returns().size() == 1
                           ? std::move((*out)[0])
                           : c10::ivalue::Tuple::create(std::move(*out));
  if (with_state) {
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(saved);
    return result;
  }
  return c10::IValue(c10::ivalue::Tuple::create({c10::IValue(saved), std::move(result)}));
}

// A get_attr's tensor (a lifted constant such as torch.tensor(...) in a forward): the values
// remat.export recorded in the node's `attr_value` field, else a fill that depends only on the
// attribute's name, so that a joint and the graphs cut from it read the same constant.
Expected<at::Tensor> attribute_value(const Node& n) {
  const TensorMeta* t = n.meta.tensor();
  if (!t) return node_error(n, "a get_attr without tensor metadata cannot be given a value");
  shape_rules::ConcreteTensor c;
  try {
    c = shape_rules::concrete(*t);
  } catch (const shape_rules::InferError& e) {
    return node_error(n, e.what());
  }
  auto dtype = to_scalar_type(t->dtype);
  if (!dtype) return node_error(n, "unsupported dtype " + std::string(dtype_name(t->dtype)));
  at::Tensor x = at::empty_strided(c.sizes, c.strides, at::TensorOptions().dtype(*dtype));
  const auto& fields = n.meta.node_fields();
  auto recorded = std::find_if(fields.begin(), fields.end(),
                               [](const RawJsonField& f) { return f.key == "attr_value"; });
  if (recorded == fields.end()) {
    if (at::isFloatingType(*dtype) || at::isComplexType(*dtype)) {
      at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(
          std::hash<std::string_view>{}(n.target().view()));
      x.normal_(0, 1, gen);
    } else {
      x.zero_();
    }
    return x;
  }
  json::JsonReader reader("node " + n.name() + " attr_value");
  std::optional<json::dom::element> root = reader.parse(recorded->json);
  json::JsonPath top, values_path = top.field("values");
  json::dom::object object;
  json::dom::array values;
  if (!root || !reader.get_object(*root, top, object)) return reader.error();
  auto field = object["values"];
  if (field.error()) return node_error(n, "attr_value has no values");
  if (!reader.get_array(field.value_unsafe(), values_path, values)) return reader.error();
  std::vector<double> numbers;
  for (json::dom::element e : values) {
    double v = 0;
    if (!reader.get_number(e, values_path.at(numbers.size()), v)) return reader.error();
    numbers.push_back(v);
  }
  if (static_cast<int64_t>(numbers.size()) != x.numel())
    return node_error(n, "attr_value holds " + std::to_string(numbers.size()) + " values for " +
                             std::to_string(x.numel()) + " elements");
  x.copy_(at::tensor(numbers, at::kDouble).reshape(c.sizes));
  return x;
}

}  // namespace

int64_t storage_bytes(const std::vector<const c10::IValue*>& values) {
  absl::flat_hash_set<const void*> seen;
  int64_t total = 0;
  auto add = [&](const at::Tensor& t) {
    if (!t.defined() || !t.has_storage()) return;
    const c10::StorageImpl* s = t.storage().unsafeGetStorageImpl();
    if (seen.insert(s).second) total += static_cast<int64_t>(s->nbytes());
  };
  for (const c10::IValue* v : values) {
    if (v->isTensor()) {
      add(v->toTensor());
    } else if (v->isTuple()) {
      for (const c10::IValue& e : v->toTupleRef().elements())
        if (e.isTensor()) add(e.toTensor());
    } else if (v->isTensorList()) {
      for (const at::Tensor& t : v->toTensorVector()) add(t);
    }
  }
  return total;
}

Expected<std::vector<c10::IValue>> run_graph(const GraphModule& module,
                                             const std::vector<c10::IValue>& inputs,
                                             const RunOptions& options) {
  at::AutoGradMode grad_mode(options.grad_mode);
  const Graph& g = module.graph();
  absl::flat_hash_map<const Node*, c10::IValue> values;
  absl::flat_hash_map<const Node*, size_t> uses_left;
  for (const Node* n : g.nodes()) uses_left[n] = n->users().size();
  auto value_of = [&](const Node* n) -> c10::IValue { return values.at(n); };
  auto release_inputs = [&](const Node* n) {
    for (Node* in : n->input_nodes()) {
      if (--uses_left[in] == 0) values.erase(in);
    }
  };
  size_t next_input = 0, done = 0;
  for (const Node* n : g.nodes()) {
    if (options.progress && ++done % 256 == 0) options.progress(done, g.size());
    switch (n->op()) {
      case OpKind::Placeholder:
        if (next_input >= inputs.size()) return node_error(*n, "more placeholders than inputs");
        values[n] = inputs[next_input++];
        break;
      case OpKind::CallFunction: {
        std::string_view target = n->target().view();
        if (target.starts_with("torch.ops.")) target.remove_prefix(10);  // 2.x's higher-order ops
        c10::IValue result;
        if (target.starts_with("operator.") || target.starts_with("_operator.")) {
          std::vector<c10::IValue> args;
          for (const Argument& a : n->args())
            args.push_back(a.is_node() ? values.at(a.as_node()) : literal(a));
          auto r = run_builtin(*n, args);
          REMAT_TRY(r);
          result = std::move(*r);
        } else if (target == "higher_order.run_and_save_rng_state" ||
                   target == "higher_order.run_with_rng_state") {
          auto r = run_with_rng(*n, target == "higher_order.run_with_rng_state", values);
          REMAT_TRY(r);
          result = std::move(*r);
        } else {
          auto op = find_aten_op(target);
          if (!op)
            return node_error(*n, "the installed ATen (libtorch " TORCH_VERSION
                                  ") has no operator " +
                                      std::string(target));
          auto out = call_aten(*op, n->args(), n->kwargs(), value_of, c10::Device(c10::kCPU));
          if (!out) return node_error(*n, out.errors().front().message);
          if (op->schema().returns().size() == 1) {
            result = std::move((*out)[0]);
            if ((target == "aten.copy.default" || target == "aten.slice_scatter.default" ||
                 target == "aten.select_scatter.default") &&
                n->args()[0].is_node())
              result = with_the_strides_of(values.at(n->args()[0].as_node()), result);
          } else {
            result = c10::ivalue::Tuple::create(std::move(*out));
          }
        }
        if (options.check_metadata) {
          Status s = check_against_meta(*n, result);
          REMAT_TRY(s);
        }
        values[n] = std::move(result);
        if (options.on_step) {
          std::vector<const c10::IValue*> alive;
          for (const auto& [node, value] : values) alive.push_back(&value);
          for (const c10::IValue& h : options.held) alive.push_back(&h);
          options.on_step(*n, storage_bytes(alive));
        }
        release_inputs(n);
        if (n->users().empty()) values.erase(n);
        break;
      }
      case OpKind::Output: {
        std::vector<c10::IValue> out;
        for (const Argument& a : module.outputs())
          out.push_back(a.is_node() ? values.at(a.as_node()) : literal(a));
        return out;
      }
      case OpKind::GetAttr: {
        Expected<at::Tensor> value = attribute_value(*n);
        REMAT_TRY(value);
        values[n] = std::move(*value);
        if (n->users().empty()) values.erase(n);
        break;
      }
      default:
        return node_error(*n, "the executor does not run call_method/call_module nodes");
    }
  }
  return std::vector<c10::IValue>{};
}

Expected<std::vector<c10::IValue>> random_inputs(const GraphModule& module, uint64_t seed) {
  at::manual_seed(seed);
  std::vector<c10::IValue> out;
  for (const Node* p : module.graph().nodes()) {
    if (p->op() != OpKind::Placeholder) continue;
    if (auto sym = p->meta.sym_value()) {
      out.emplace_back(sym->is_symbolic() ? int64_t{4} : sym->value());
      continue;
    }
    const TensorMeta* t = p->meta.tensor();
    if (!t)
      return node_error(*p, "a placeholder without tensor metadata cannot be given a random value");
    shape_rules::ConcreteTensor c;
    try {
      c = shape_rules::concrete(*t);
    } catch (const shape_rules::InferError& e) {
      return node_error(*p, e.what());
    }
    auto dtype = to_scalar_type(t->dtype == DType::Unknown ? DType::Float32 : t->dtype);
    if (!dtype) return node_error(*p, "unsupported dtype " + std::string(dtype_name(t->dtype)));
    // Integer inputs: indices must stay below what their users index into.
    int64_t bound = 2;
    for (const Node* u : p->users()) {
      std::string_view target = u->target().view();
      auto arg_is = [&](size_t i) {
        return u->args().size() > i && u->args()[i].is_node() && u->args()[i].as_node() == p;
      };
      auto size_of_arg = [&](size_t i, int64_t dim) -> std::optional<int64_t> {
        if (u->args().size() <= i || !u->args()[i].is_node() ||
            !u->args()[i].as_node()->meta.tensor())
          return std::nullopt;
        auto s = shape_rules::concrete(*u->args()[i].as_node()->meta.tensor()).sizes;
        if (s.empty()) return std::nullopt;
        return s[dim < 0 ? s.size() + dim : dim];
      };
      if (target == "aten.embedding.default" && arg_is(1))
        bound = size_of_arg(0, 0).value_or(bound);
      if ((target == "aten.nll_loss_forward.default" ||
           target == "aten.nll_loss2d_forward.default") &&
          arg_is(1))
        bound = size_of_arg(0, -1).value_or(bound);
      if (target == "aten.nll_loss_backward.default" && arg_is(2))
        bound = size_of_arg(1, -1).value_or(bound);
      if (target == "aten.embedding_dense_backward.default" && arg_is(1) && u->args().size() > 2 &&
          u->args()[2].is(ArgKind::Int))
        bound = u->args()[2].as_int();
    }
    at::Tensor x = at::empty_strided(c.sizes, c.strides, at::TensorOptions().dtype(*dtype));
    if (at::isFloatingType(*dtype) || at::isComplexType(*dtype)) {
      x.normal_();
    } else if (*dtype == at::kBool) {
      x.copy_(at::randint(0, 2, c.sizes, at::kLong).to(at::kBool));
    } else {
      x.random_(0, std::max<int64_t>(bound, 1));
    }
    out.emplace_back(x);
  }
  return out;
}

}  // namespace remat::exec
