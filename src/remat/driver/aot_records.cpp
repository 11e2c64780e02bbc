#include "remat/driver/aot_records.h"

#include "remat/print/printer.h"

namespace remat::driver {

void write_aot_records(tracelog::TraceWriter& w, const tracelog::CompileId& id,
                       const GraphModule& joint, const GraphModule& forward,
                       const GraphModule& backward, const partition::PartitionReport* report) {
  w.write("aot_joint_graph", "{}", id, print_readable(joint, PrintOptions::tlparse()).text);
  w.write("aot_forward_graph", "{}", id, print_readable(forward, PrintOptions::tlparse()).text);
  w.write("aot_backward_graph", "{}", id, print_readable(backward, PrintOptions::tlparse()).text);
  if (report) w.artifact("remat_partition", "json", id, report->json());
}

}  // namespace remat::driver
