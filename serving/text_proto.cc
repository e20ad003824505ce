#include "serving/text_proto.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace strata::serving {

namespace {

class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (error.empty()) error = "line " + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string error;
};

}  // namespace

std::string parse_text_proto(const std::string& text, google::protobuf::Message& message) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(text, &message)) return "";
  return errors.error.empty() ? std::string("it could not be parsed") : errors.error;
}

std::string read_config_text(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("can't read " + what + " '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw IOError("can't read " + what + " '" + path + "'");
  return text.str();
}

}  // namespace strata::serving
