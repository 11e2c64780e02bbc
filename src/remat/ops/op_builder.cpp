#include "remat/ops/op_builder.h"

#include "remat/ops/op_registry.h"

namespace remat {

void strip_default_arguments(const OpSchema& schema, std::vector<Argument>& args,
                             std::vector<Kwarg>& kwargs) {
  while (!args.empty()) {
    const SchemaArg& p = schema.arguments[args.size() - 1];
    if (!p.default_text || !(args.back() == default_value(p))) break;
    args.pop_back();
  }
  std::erase_if(kwargs, [&](const Kwarg& kw) {
    int i = schema.find_argument(kw.key.view());
    return i >= 0 && schema.arguments[i].default_text &&
           kw.value == default_value(schema.arguments[i]);
  });
}

Expected<AppendedOp> append_op(Graph& graph, const OpInfo& op, std::vector<Argument> args,
                               std::vector<Kwarg> kwargs) {
  auto inferred = infer_outputs(op, args, kwargs);
  REMAT_TRY(inferred);
  strip_default_arguments(op.schema, args, kwargs);
  AppendedOp out;
  out.node = graph.call_function(op.target, std::move(args), std::move(kwargs));
  out.node->meta.set_value_key(ValueKey::Val);
  out.nodes.push_back(out.node);
  if (!inferred->is_tuple) {
    out.node->meta.set_tensor(*inferred->values.at(0));
    out.outputs.push_back(out.node);
    return out;
  }
  out.node->meta.set_tensor_tuple(inferred->values);
  for (size_t i = 0; i < inferred->values.size(); ++i) {
    if (!inferred->values[i]) {
      out.outputs.push_back(nullptr);
      continue;
    }
    Node* item = graph.call_function(
        "operator.getitem", {Argument::node(out.node), Argument::integer(static_cast<int64_t>(i))});
    item->meta.set_value_key(ValueKey::Val);
    item->meta.set_tensor(*inferred->values[i]);
    out.outputs.push_back(item);
    out.nodes.push_back(item);
  }
  return out;
}

}  // namespace remat
