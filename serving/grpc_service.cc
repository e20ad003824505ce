#include "serving/grpc_service.h"

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "serving/batcher.h"
#include "serving/errors.h"
#include "serving/metrics.h"
#include "serving/servable_lookup.h"
#include "serving/tensor_proto.h"

namespace strata::serving {

namespace tfs = tensorflow::serving;

namespace {

// Runs a method's body; its exceptions become the gRPC status TensorFlow Serving answers.
template <typename Body>
grpc::Status grpc_answer(Body&& body) {
  try {
    body();
    return grpc::Status::OK;
  } catch (...) {
    const ServingError e = as_serving_error(std::current_exception());
    return {static_cast<grpc::StatusCode>(e.code()), e.what()};
  }
}

// The version a ModelSpec asks for: a number, the one its label names, or the latest (none).
std::optional<std::int64_t> requested_version(const ModelRegistry& models, const tfs::ModelSpec& spec) {
  if (spec.version_choice_case() == tfs::ModelSpec::kVersionLabel) {
    return find_label(models, spec.name(), spec.version_label());
  }
  if (spec.has_version()) return spec.version().value();
  return std::nullopt;
}

template <typename Names>
std::string joined(const Names& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

std::set<std::string> signature_input_names(const Signature& sig) {
  std::set<std::string> names;
  for (const auto& i : sig.inputs) names.insert(i.name);
  return names;
}

// TensorFlow Serving's PreProcessPrediction checks, with its messages: as many inputs as
// the signature has, each under one of its names.
void check_input_aliases(const tfs::PredictRequest& request, const Signature& sig) {
  const std::set<std::string> wanted = signature_input_names(sig);
  std::set<std::string> sent;
  for (const auto& [alias, tensor] : request.inputs()) sent.insert(alias);
  if (sent.size() != wanted.size()) {
    std::set<std::string> extra, missing;
    for (const auto& a : sent) {
      if (!wanted.count(a)) extra.insert(a);
    }
    for (const auto& a : wanted) {
      if (!sent.count(a)) missing.insert(a);
    }
    throw invalid_argument("input size does not match signature: " + std::to_string(sent.size()) + "!=" +
                           std::to_string(wanted.size()) + " len({" + joined(sent) + "}) != len({" + joined(wanted) +
                           "}). Sent extra: {" + joined(extra) + "}. Missing but required: {" + joined(missing) + "}.");
  }
  for (const auto& a : sent) {
    if (!wanted.count(a)) {
      throw invalid_argument("input tensor alias not found in signature: " + a +
                             ". Inputs expected to be in the set {" + joined(wanted) + "}.");
    }
  }
}

// The outputs to answer with, as indices into the signature's outputs: output_filter's,
// in its order, or all of them.
std::vector<std::size_t> selected_outputs(const tfs::PredictRequest& request, const Signature& sig) {
  std::vector<std::size_t> selected;
  std::set<std::string> seen;
  for (const auto& alias : request.output_filter()) {
    std::size_t k = 0;
    while (k < sig.outputs.size() && sig.outputs[k].name != alias) ++k;
    if (k == sig.outputs.size()) {
      std::set<std::string> names;
      for (const auto& o : sig.outputs) names.insert(o.name);
      throw invalid_argument("output tensor alias not found in signature: " + alias +
                             " Outputs expected to be in the set {" + joined(names) + "}.");
    }
    if (!seen.insert(alias).second) throw invalid_argument("duplicate output tensor alias: " + alias);
    selected.push_back(k);
  }
  if (selected.empty()) {
    for (std::size_t k = 0; k < sig.outputs.size(); ++k) selected.push_back(k);
  }
  return selected;
}

void check_signature_name(const std::string& signature_name) {
  if (!is_default_signature(signature_name)) {
    throw failed_precondition("Serving signature key \"" + signature_name + "\" not found.");
  }
}

tfs::ModelVersionStatus::State state_proto(VersionState state) {
  switch (state) {
    case VersionState::kLoading:
      return tfs::ModelVersionStatus::LOADING;
    case VersionState::kAvailable:
      return tfs::ModelVersionStatus::AVAILABLE;
    case VersionState::kEnd:
      return tfs::ModelVersionStatus::END;
  }
  return tfs::ModelVersionStatus::UNKNOWN;
}

}  // namespace

grpc::Status PredictionServiceImpl::predict(const tfs::PredictRequest& request, tfs::PredictResponse* response) const {
  // Counted as TensorFlow Serving counts it: by status, and the answered ones' wall time.
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status status = answer_predict(request, response);
  serving_metrics().record_request(request.model_spec().name(), "Predict", "GRPC", status.error_code(),
                                   micros_since(start));
  return status;
}

grpc::Status PredictionServiceImpl::answer_predict(const tfs::PredictRequest& request,
                                                   tfs::PredictResponse* response) const {
  return grpc_answer([&] {
    const tfs::ModelSpec& spec = request.model_spec();
    auto servable = find_servable(models_, spec.name(), requested_version(models_, spec));
    check_signature_name(spec.signature_name());
    const Signature& sig = servable->signature();
    check_input_aliases(request, sig);
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < sig.inputs.size(); ++i) {
      inputs.push_back(tensor_from_proto(request.inputs().at(sig.inputs[i].name), sig.inputs[i], i,
                                         {.max_rows = options_.max_rows_per_request,
                                          .max_bytes = options_.max_input_bytes}));
      if (inputs[i].shape()[0] != inputs[0].shape()[0]) {
        throw invalid_argument("input '" + sig.inputs[i].name + "' has " + std::to_string(inputs[i].shape()[0]) +
                               " rows but input '" + sig.inputs[0].name + "' has " +
                               std::to_string(inputs[0].shape()[0]) + "; every input needs one row per example");
      }
    }
    const std::vector<std::size_t> selected = selected_outputs(request, sig);
    std::vector<Tensor> outputs = servable->predict(std::move(inputs));
    auto* out_spec = response->mutable_model_spec();
    out_spec->set_name(spec.name());
    out_spec->mutable_version()->set_value(servable->version());
    out_spec->set_signature_name(kDefaultSignature);
    auto& out = *response->mutable_outputs();
    for (std::size_t k : selected) tensor_to_proto(outputs.at(k), &out[sig.outputs[k].name]);
  });
}

grpc::Status PredictionServiceImpl::model_metadata(const tfs::GetModelMetadataRequest& request,
                                                   tfs::GetModelMetadataResponse* response) const {
  return grpc_answer([&] {
    if (!request.has_model_spec()) throw invalid_argument("Missing ModelSpec");
    if (request.metadata_field_size() == 0) {
      throw invalid_argument("GetModelMetadataRequest must specify at least one metadata_field");
    }
    for (const auto& field : request.metadata_field()) {
      if (field != "signature_def") {
        throw invalid_argument("Metadata field " + field + " is not supported (the one field is signature_def)");
      }
    }
    const tfs::ModelSpec& spec = request.model_spec();
    auto servable = find_servable(models_, spec.name(), requested_version(models_, spec));
    const Signature& sig = servable->signature();
    tfs::SignatureDefMap map;
    tensorflow::SignatureDef& def = (*map.mutable_signature_def())[kDefaultSignature];
    for (const auto& input : sig.inputs) {
      tensor_info_to_proto(input, signature_input_tensor_name(input), &(*def.mutable_inputs())[input.name]);
    }
    for (std::size_t k = 0; k < sig.outputs.size(); ++k) {
      tensor_info_to_proto(sig.outputs[k], signature_output_tensor_name(k),
                           &(*def.mutable_outputs())[sig.outputs[k].name]);
    }
    def.set_method_name("tensorflow/serving/predict");
    response->mutable_model_spec()->set_name(spec.name());
    response->mutable_model_spec()->mutable_version()->set_value(servable->version());
    (*response->mutable_metadata())["signature_def"].PackFrom(map);
  });
}

grpc::Status ModelServiceImpl::model_status(const tfs::GetModelStatusRequest& request,
                                            tfs::GetModelStatusResponse* response) const {
  return grpc_answer([&] {
    if (!request.has_model_spec()) throw invalid_argument("Missing ModelSpec");
    const tfs::ModelSpec& spec = request.model_spec();
    for (const auto& s : find_statuses(models_, spec.name(), requested_version(models_, spec))) {
      auto* status = response->add_model_version_status();
      status->set_version(s.version);
      status->set_state(state_proto(s.state));
      status->mutable_status()->set_error_code(s.error.empty() ? tensorflow::error::OK : tensorflow::error::UNKNOWN);
      status->mutable_status()->set_error_message(s.error);
    }
  });
}

}  // namespace strata::serving
