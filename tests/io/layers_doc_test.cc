// docs/layers.md against the library and against Keras. Its supported rows are exactly
// what Strata loads (layer classes, activations, operations), and it has a row for every
// entry of Keras 3.15's own list, tests/data/keras_api/keras_3_15_api.json (written by
// tests/reference/list_keras_api.py: this suite never runs Python), refusing only the
// wrappers of other frameworks' code.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/layer_config.h"
#include "layers/activations.h"
#include "layers/core/op_layer.h"
#include "layers/keras_class.h"

namespace layers_doc_test {

namespace {

struct Row {
  std::string status;     // "supported", "planned" or "refused"
  std::string qualifier;  // what follows it: "supported (as a cell)" is not a layer class of its own
};
using Table = std::map<std::string, Row>;  // a row's first cell -> the row

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// docs/layers.md's tables by their first column's header ("class", "activation",
// "operation"): each table starts at a "| <header> | status | note |" line and ends at
// the first line that is not a row.
std::map<std::string, Table> doc_tables() {
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/../../docs/layers.md");
  EXPECT_TRUE(f) << "cannot open docs/layers.md";
  std::map<std::string, Table> tables;
  Table* table = nullptr;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind('|', 0) != 0) {
      table = nullptr;
      continue;
    }
    std::vector<std::string> cells;
    std::istringstream in(line.substr(1));
    for (std::string cell; std::getline(in, cell, '|');) cells.push_back(trim(cell));
    if (cells.size() < 2 || cells[0].rfind("---", 0) == 0) continue;
    if (cells[1] == "status") {
      table = &tables[cells[0]];
      continue;
    }
    if (!table) continue;
    const auto space = cells[1].find(' ');
    Row row{cells[1].substr(0, space), space == std::string::npos ? "" : cells[1].substr(space + 1)};
    EXPECT_TRUE(table->emplace(cells[0], row).second) << cells[0] << " has two rows in docs/layers.md";
  }
  return tables;
}

// The rows of a table whose status is exactly "supported".
std::set<std::string> supported(const Table& table) {
  std::set<std::string> out;
  for (const auto& [name, row] : table)
    if (row.status == "supported" && row.qualifier.empty()) out.insert(name);
  return out;
}

void expect_same(const std::set<std::string>& documented, const std::set<std::string>& loaded,
                 const std::string& what, const std::string& loader) {
  for (const auto& n : loaded)
    EXPECT_TRUE(documented.count(n)) << what << " " << n << " loads (" << loader
                                     << ") but docs/layers.md does not say supported";
  for (const auto& n : documented)
    EXPECT_TRUE(loaded.count(n)) << what << " " << n << " is documented as supported but does not load (" << loader
                                 << ")";
}

nlohmann::json keras_api() {
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/keras_api/keras_3_15_api.json");
  EXPECT_TRUE(f) << "cannot open tests/data/keras_api/keras_3_15_api.json";
  return nlohmann::json::parse(f);
}

}  // namespace

TEST(LayersDoc, SupportedRowsAreTheRegisteredClasses) {
  const auto tables = doc_tables();
  ASSERT_TRUE(tables.count("class")) << "docs/layers.md has no '| class | status | note |' table";
  // Keras's classes and models; not a user's class another test of this binary registered
  // (its module is the user's package).
  std::set<std::string> registered;
  for (const auto& name : strata::io::registered_layer_classes()) {
    const auto k = strata::layers::find_keras_class(name);
    if (!k || k->module.rfind("keras", 0) == 0) registered.insert(name);
  }
  expect_same(supported(tables.at("class")), registered, "layer class", "io::registered_layer_classes");
}

TEST(LayersDoc, SupportedActivationsAreStratas) {
  const auto tables = doc_tables();
  ASSERT_TRUE(tables.count("activation")) << "docs/layers.md has no '| activation | status | note |' table";
  // Keras 2's hard_sigmoid, Strata's own name (a Keras 2 file's "hard_sigmoid" reads as
  // it): not a Keras 3 activation, described in the page's prose.
  const std::set<std::string> strata_only{"hard_sigmoid_keras2"};
  std::set<std::string> names;
  for (const auto& n : strata::activations::names())
    if (!strata_only.count(n)) names.insert(n);
  expect_same(supported(tables.at("activation")), names, "activation", "activations::names");
}

TEST(LayersDoc, SupportedOperationsAreTheOpLayers) {
  const auto tables = doc_tables();
  ASSERT_TRUE(tables.count("operation")) << "docs/layers.md has no '| operation | status | note |' table";
  const auto ops = strata::layers::supported_ops();
  expect_same(supported(tables.at("operation")), {ops.begin(), ops.end()}, "operation", "layers::supported_ops");
}

TEST(LayersDoc, HasARowForEveryKerasEntry) {
  const auto tables = doc_tables();
  const auto api = keras_api();
  const std::string keras = "Keras " + api.value("keras_version", std::string("?"));
  ASSERT_EQ(api.value("keras_version", std::string()).rfind("3.15.", 0), 0u) << keras;
  // (JSON list, the key naming an entry, the docs table, what the entry is)
  const std::vector<std::vector<std::string>> lists{{"layers", "class_name", "class", "layer class"},
                                                    {"activations", "name", "activation", "activation"},
                                                    {"operations", "class_name", "operation", "operation"}};
  for (const auto& l : lists) {
    const auto& entries = api.at(l[0]);
    ASSERT_FALSE(entries.empty()) << keras << " lists no " << l[0];
    const auto table = tables.find(l[2]);
    ASSERT_NE(table, tables.end()) << "docs/layers.md has no '| " << l[2] << " | status | note |' table";
    for (const auto& e : entries) {
      const std::string name = e.at(l[1]).get<std::string>();
      EXPECT_TRUE(table->second.count(name))
          << keras << "'s " << l[3] << " " << name << " has no row in docs/layers.md's " << l[2] << " table";
    }
  }
}

TEST(LayersDoc, RefusesOnlyWrappersOfOtherFrameworks) {
  // Their configs hold another framework's code or model (Python bytecode, a SavedModel,
  // a JAX function, a Flax or PyTorch module), which C++ cannot run.
  const std::set<std::string> wrappers{"Lambda", "TFSMLayer", "JaxLayer", "FlaxLayer", "TorchModuleWrapper"};
  const auto tables = doc_tables();
  for (const auto& [header, table] : tables) {
    for (const auto& [name, row] : table) {
      EXPECT_TRUE(row.status == "supported" || row.status == "planned" || row.status == "refused")
          << header << " " << name << ": status '" << row.status
          << "' in docs/layers.md is not supported, planned or refused";
      if (row.status == "refused")
        EXPECT_TRUE(header == "class" && wrappers.count(name))
            << header << " " << name << " is refused in docs/layers.md, but only wrappers of other frameworks' code "
            << "(Lambda, TFSMLayer, JaxLayer, FlaxLayer, TorchModuleWrapper) may be";
    }
  }
}

}  // namespace layers_doc_test
