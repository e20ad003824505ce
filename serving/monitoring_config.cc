#include "serving/monitoring_config.h"

#include "core/error.h"
#include "serving/metrics.h"
#include "serving/proto/monitoring_config.pb.h"
#include "serving/text_proto.h"

namespace strata::serving {

std::string parse_monitoring_config(const std::string& text) {
  tensorflow::serving::MonitoringConfig config;
  if (const std::string error = parse_text_proto(text, config); !error.empty()) {
    throw ValueError("the monitoring config is not a MonitoringConfig in protobuf's text format: " + error);
  }
  const auto& prometheus = config.prometheus_config();
  if (!prometheus.enable()) return "";
  const std::string path = prometheus.path().empty() ? std::string(kPrometheusPath) : prometheus.path();
  if (!path.starts_with("/")) throw ValueError("prometheus_config's path '" + path + "' does not start with '/'");
  if (path == "/v1" || path.starts_with("/v1/")) {
    throw ValueError("prometheus_config's path '" + path + "' is under /v1/, where the REST API's requests go");
  }
  return path;
}

std::string read_monitoring_config_file(const std::string& path) {
  const std::string text = read_config_text(path, "the monitoring config file");
  try {
    return parse_monitoring_config(text);
  } catch (const ValueError& e) {
    throw ValueError("'" + path + "': " + e.what());
  }
}

}  // namespace strata::serving
