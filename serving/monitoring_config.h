// --monitoring_config_file: TensorFlow Serving's MonitoringConfig in protobuf's text format
// (serving/proto/monitoring_config.proto), read with protobuf's text parser:
//
//   prometheus_config {
//     enable: true
//     path: "/monitoring/prometheus/metrics"
//   }
//
// With enable, the REST port answers GET at the path (TensorFlow Serving's when none is
// given) with the Prometheus page of serving_metrics() (serving/metrics.h). The same file
// configures TensorFlow Serving.
#pragma once

#include <string>

namespace strata::serving {

// The path of the Prometheus page `text` asks for, "" when it enables none. Throws
// ValueError saying what and where (line:column for text the parser refuses), and for a
// path that does not start with '/' or lies under the API's /v1/.
std::string parse_monitoring_config(const std::string& text);
// The same for the file at `path`; throws IOError when it can't be read.
std::string read_monitoring_config_file(const std::string& path);

}  // namespace strata::serving
