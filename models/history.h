// History: what fit() returns, as Keras's History callback records it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace strata {

struct History {
  std::map<std::string, std::vector<float>> history;  // log key -> one value per epoch
  std::vector<int> epoch;                              // 0-based indices of the epochs run
  struct Params {
    int verbose = 1;
    int epochs = 1;
    std::int64_t steps = 0;
  } params;
};

}  // namespace strata
