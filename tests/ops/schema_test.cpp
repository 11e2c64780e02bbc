// Schema parsing and printing, argument binding, and the registry's own consistency.
#include <gtest/gtest.h>

#include "remat/fxtext/statement_call.h"
#include "remat/ir/graph.h"
#include "remat/ops/op_registry.h"
#include "remat/ops/schema.h"

namespace remat {
namespace {

TEST(Schema, ParsesArgumentsReturnsAndAliases) {
  auto s = parse_schema(
      "aten::split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]");
  ASSERT_TRUE(s.ok()) << format_all(s.errors());
  EXPECT_EQ(s->ns, "aten");
  EXPECT_EQ(s->name, "split");
  EXPECT_EQ(s->overload, "Tensor");
  EXPECT_EQ(s->target(), "aten.split.Tensor");
  ASSERT_EQ(s->arguments.size(), 3u);
  EXPECT_EQ(s->arguments[0].alias_set, "a");
  EXPECT_TRUE(s->arguments[0].is_tensor());
  EXPECT_EQ(s->arguments[2].default_text, "0");
  ASSERT_EQ(s->returns.size(), 1u);
  EXPECT_TRUE(s->returns[0].is_tensor_list());
  EXPECT_TRUE(s->returns_alias());
  EXPECT_FALSE(s->returns_tuple);
}

TEST(Schema, KwargOnlyOptionalFixedListsAndNamedReturns) {
  auto s = parse_schema(
      "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? "
      "dtype=None) -> Tensor");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->target(), "aten.sum.dim_IntList");
  EXPECT_TRUE(s->arguments[1].is_list);
  EXPECT_TRUE(s->arguments[1].is_optional);
  EXPECT_EQ(s->arguments[1].fixed_size, 1);
  EXPECT_FALSE(s->arguments[2].kwarg_only);
  EXPECT_TRUE(s->arguments[3].kwarg_only);
  auto n = parse_schema(
      "aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int "
      "reduction, int ignore_index) -> (Tensor output, Tensor total_weight)");
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->returns_tuple);
  EXPECT_EQ(n->returns[1].name, "total_weight");
  auto w = parse_schema(
      "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->arguments[0].is_write);
  EXPECT_FALSE(w->returns_alias());  // a write, not a view
}

TEST(Schema, EveryRegisteredSchemaPrintsBackIdentically) {
  ASSERT_GT(all_ops().size(), 90u);
  for (const OpInfo& op : all_ops()) {
    EXPECT_EQ(op.schema.to_string(), op.schema_text);
    EXPECT_EQ(find_op(op.target), &op);
    EXPECT_EQ(find_op("torch.ops." + op.target), &op);
  }
  EXPECT_EQ(find_op("aten.mm"), find_op("aten.mm.default"));
  EXPECT_EQ(find_op("aten.nonexistent.default"), nullptr);
}

TEST(Schema, TheReportsStorageSharingOpsAreTheRegistrysViews) {
  // report/ counts PyTorch's graph text with fxtext's list; partition/ counts the IR with the
  // registry's View category (plus detach and _unsafe_view, storage_root): the same ops.
  size_t views = 0;
  for (const OpInfo& op : all_ops()) {
    bool shares = op.is(OpCategory::View) || op.target == "aten.detach.default" ||
                  op.target == "aten._unsafe_view.default";
    EXPECT_EQ(fxtext::shares_input_storage(op.target), shares) << op.target;
    views += shares ? 1 : 0;
  }
  EXPECT_GE(views, 10u);
}

TEST(Schema, ErrorsPointAtTheColumn) {
  auto bad = parse_schema("aten::mm(Tensor self, Tensor mat2 -> Tensor");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors()[0].col, 35);
  EXPECT_FALSE(parse_schema("mm(Tensor self) -> Tensor").ok());
  EXPECT_FALSE(parse_schema("aten::mm(Tensor self) Tensor").ok());
  EXPECT_FALSE(parse_schema("aten::mm(Tensor) -> Tensor").ok());
  EXPECT_FALSE(parse_schema("aten::mm(int[x] a) -> Tensor").ok());
}

TEST(Categories, FollowThePartitionersLists) {
  auto cats = [](std::string_view t) { return find_op(t)->categories; };
  EXPECT_TRUE(has(cats("aten.mm.default"), OpCategory::ComputeIntensive));
  EXPECT_TRUE(has(cats("aten.convolution_backward.default"), OpCategory::ComputeIntensive));
  EXPECT_TRUE(has(cats("aten.native_dropout.default"), OpCategory::Random));
  EXPECT_TRUE(has(cats("aten.sigmoid_backward.default"), OpCategory::Pointwise));
  EXPECT_TRUE(has(cats("aten.t.default"), OpCategory::View));
  // The partitioner's view_ops leave out transpose and detach.
  EXPECT_FALSE(has(cats("aten.transpose.int"), OpCategory::View));
  EXPECT_FALSE(has(cats("aten.detach.default"), OpCategory::View));
  EXPECT_FALSE(has(cats("aten._softmax.default"), OpCategory::Recomputable));
  EXPECT_TRUE(has(cats("aten.sum.dim_IntList"), OpCategory::Reduction));
  EXPECT_EQ(category_names(cats("aten.relu.default")), "pointwise|recomputable");
  EXPECT_EQ(category_names(OpCategory::None), "none");
}

class InferTest : public ::testing::Test {
 protected:
  Graph g;
  Argument input(std::initializer_list<int64_t> sizes, DType dtype = DType::Float32,
                 std::optional<std::vector<int64_t>> strides = std::nullopt) {
    Node* p = g.placeholder("x");
    std::vector<SymInt> s(sizes.begin(), sizes.end());
    if (strides) {
      std::vector<SymInt> st(strides->begin(), strides->end());
      p->meta.set_tensor(TensorMeta(dtype, s, std::span<const SymInt>(st), InternedString("cpu")));
    } else {
      p->meta.set_tensor(
          TensorMeta(dtype, s, TensorMeta::contiguous_strides(s), InternedString("cpu")));
    }
    return Argument::node(p);
  }
  static std::vector<int64_t> ints(std::span<const SymInt> v) {
    std::vector<int64_t> out;
    for (SymInt s : v) out.push_back(s.value());
    return out;
  }
  InferredOutputs infer(std::string_view target, std::vector<Argument> args,
                        std::vector<Kwarg> kwargs = {}) {
    auto out = infer_outputs(*find_op(target), args, kwargs);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : format_all(out.errors()));
    return out.ok() ? *out : InferredOutputs{};
  }
};

TEST_F(InferTest, ViewsKeepTheirStrides) {
  InferredOutputs t = infer("aten.t.default", {input({4, 4})});
  EXPECT_EQ(ints(*t.values[0]->strides()), (std::vector<int64_t>{1, 4}));
  InferredOutputs e =
      infer("aten.expand.default",
            {input({3, 1}),
             Argument::list({Argument::integer(2), Argument::integer(3), Argument::integer(4)})});
  EXPECT_EQ(ints(e.values[0]->sizes()), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(ints(*e.values[0]->strides()), (std::vector<int64_t>{0, 1, 0}));
}

TEST_F(InferTest, PointwiseFollowsTheInputLayoutAndPromotes) {
  InferredOutputs s =
      infer("aten.sin.default", {input({4, 3}, DType::Int64, std::vector<int64_t>{1, 4})});
  EXPECT_EQ(s.values[0]->dtype, DType::Float32);
  EXPECT_EQ(ints(*s.values[0]->strides()), (std::vector<int64_t>{1, 4}));
  InferredOutputs a =
      infer("aten.add.Tensor", {input({2, 1, 3}, DType::Float16), input({4, 1}, DType::Float32)});
  EXPECT_EQ(ints(a.values[0]->sizes()), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(a.values[0]->dtype, DType::Float32);
  InferredOutputs m = infer("aten.mul.Scalar", {input({2}, DType::Int32), Argument::floating(0.5)});
  EXPECT_EQ(m.values[0]->dtype, DType::Float32);
  InferredOutputs i = infer("aten.mul.Scalar", {input({2}, DType::Int32), Argument::integer(3)});
  EXPECT_EQ(i.values[0]->dtype, DType::Int32);
}

TEST_F(InferTest, BindingAppliesDefaultsAndRejectsBadCalls) {
  InferredOutputs s =
      infer("aten.sum.dim_IntList", {input({2, 3, 4}), Argument::list({Argument::integer(1)})});
  EXPECT_EQ(ints(s.values[0]->sizes()), (std::vector<int64_t>{2, 4}));
  const OpInfo& mm = *find_op("aten.mm.default");
  auto bad = infer_outputs(mm, std::vector<Argument>{input({2, 3}), input({4, 5})});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errors()[0].message.find("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
            std::string::npos);
  EXPECT_FALSE(infer_outputs(mm, std::vector<Argument>{input({2, 3})}).ok());
  EXPECT_FALSE(infer_outputs(mm, std::vector<Argument>{input({2, 3}), Argument::integer(1)}).ok());
  std::vector<Kwarg> unknown = {{InternedString("alpha"), Argument::integer(1)}};
  EXPECT_FALSE(
      infer_outputs(mm, std::vector<Argument>{input({2, 3}), input({3, 3})}, unknown).ok());
  auto view =
      infer_outputs(*find_op("aten.view.default"),
                    std::vector<Argument>{input({4, 4}, DType::Float32, std::vector<int64_t>{1, 4}),
                                          Argument::list({Argument::integer(16)})});
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.errors()[0].message.find("Use .reshape"), std::string::npos);
}

TEST_F(InferTest, FlopsCountMultiplyAddsTwice) {
  const OpInfo& mm = *find_op("aten.mm.default");
  std::vector<Argument> args = {input({8, 16}), input({16, 4})};
  auto call = bind(mm.schema, args, {});
  ASSERT_TRUE(call.ok());
  InferredOutputs out = infer("aten.mm.default", args);
  EXPECT_EQ(count_flops(mm, *call, out), 2 * 8 * 16 * 4);
  const OpInfo& relu = *find_op("aten.relu.default");
  std::vector<Argument> r = {input({8, 16})};
  EXPECT_EQ(count_flops(relu, *bind(relu.schema, r, {}), infer("aten.relu.default", r)), 128);
}

}  // namespace
}  // namespace remat
