// The joint graph of a function traced with remat's tracer, for tests of the layers above it
// (header-only: the test binaries that use it link the tracer and autodiff).
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "remat/autodiff/joint_graph.h"
#include "remat/ir/verify.h"
#include "remat/trace/tracer.h"

namespace remat::testing {

/// Traces `body(tracer)` (it returns the outputs) and builds the joint graph; a failure is a test
/// failure and gives an empty module.
template <class Body>
GraphModule traced_joint(Body body) {
  trace::Tracer tracer;
  tracer.output(body(tracer));
  GraphModule forward = tracer.finish();
  auto joint = autodiff::build_joint_graph(forward);
  EXPECT_TRUE(joint.ok()) << (joint.ok() ? "" : format_all(joint.errors()));
  if (!joint.ok()) return GraphModule{};
  EXPECT_TRUE(verify(*joint).empty());
  return std::move(*joint);
}

}  // namespace remat::testing
