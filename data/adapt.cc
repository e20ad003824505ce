#include "data/adapt.h"

#include "core/error.h"
#include "layers/adapt.h"

namespace strata {

void adapt(const Layer& layer, const Dataset& data, std::optional<std::int64_t> steps) {
  auto* adaptable = dynamic_cast<layers::AdaptableLayer*>(&layer.impl());
  if (!adaptable) {
    throw ValueError(layer.class_name() + " '" + layer.name() + "' does not adapt to data");
  }
  if (!steps && data.cardinality() == DatasetImpl::kInfinite) {
    throw ValueError("adapt " + layer.class_name() + " '" + layer.name() +
                     "': the dataset repeats forever; give steps");
  }
  adaptable->reset_state();
  auto it = data.iterate();
  for (std::int64_t n = 0; !steps || n < *steps; ++n) {
    std::optional<Element> e = it->next();
    if (!e) break;
    if (e->empty()) throw ValueError("adapt: a dataset element holds no tensor");
    adaptable->update_state(e->front());
  }
  adaptable->finalize_state();
}

}  // namespace strata
