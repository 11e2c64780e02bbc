// models::traced(): the tracer set-up every model shares.
#pragma once

#include "remat/trace/tracer.h"

namespace remat::models {

template <class Body>
Expected<GraphModule> traced(const ModelOptions& options, std::string_view name, Body&& body) {
  try {
    trace::Tracer tracer({options.device, std::string(name)});
    tracer.output(body(tracer));
    return tracer.finish();
  } catch (const trace::TraceError& e) {
    return error_message(std::string(name) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    return error_message(std::string(name) + ": " + e.what());
  }
}

}  // namespace remat::models
