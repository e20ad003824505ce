// docs/layers.md's supported rows of its table of layer classes are exactly the classes the
// library can load and save.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/layer_config.h"
#include "layers/keras_class.h"

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
