// Protobuf's text format, as TensorFlow Serving's config files are written: one parse
// that reports the parser's first error with its line and column (1-based, as editors
// count), for --model_config_file and --monitoring_config_file.
#pragma once

#include <google/protobuf/message.h>

#include <string>

namespace strata::serving {

// Parses `text` into `message`; "" when it parsed, else "line L:C: what".
std::string parse_text_proto(const std::string& text, google::protobuf::Message& message);

// The text of the config file at `path`; an IOError naming `what` ("the model config
// file") when it can't be read.
std::string read_config_text(const std::string& path, const std::string& what);

}  // namespace strata::serving
