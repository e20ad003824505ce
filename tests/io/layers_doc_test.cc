// docs/layers.md's supported rows are exactly the classes the library can load and save.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "io/layer_config.h"
#include "layers/keras_class.h"

TEST(LayersDoc, SupportedRowsAreTheRegisteredClasses) {
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/../../docs/layers.md");
  ASSERT_TRUE(f) << "cannot open docs/layers.md";
  std::set<std::string> documented;
  std::string line;
  while (std::getline(f, line)) {
    // "| Dense | supported | |"
    std::istringstream row(line);
    std::string bar, cls, status;
    if (!(row >> bar >> cls >> bar >> status) || status != "supported") continue;
    std::string rest;
    if (row >> rest && rest.front() == '(') continue;  // "supported (as a cell)": not a layer class
    documented.insert(cls);
  }
  // Keras's classes and models; not a user's class another test of this binary registered
  // (its module is the user's package).
  std::set<std::string> registered;
  for (const auto& name : strata::io::registered_layer_classes()) {
    const auto k = strata::layers::find_keras_class(name);
    if (!k || k->module.rfind("keras", 0) == 0) registered.insert(name);
  }
  for (const auto& c : registered) EXPECT_TRUE(documented.count(c)) << c << " is not in docs/layers.md";
  for (const auto& c : documented) EXPECT_TRUE(registered.count(c)) << c << " is documented but not registered";
}
