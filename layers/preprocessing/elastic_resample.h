// Keras's elastic deformation given its noise field (keras.ops.image.elastic_transform,
// TensorFlow backend), shared by RandomElasticTransform (its field Strata's draws, its
// strength drawn per batch) and the saved ElasticTransform operation (its field
// TensorFlow's stateless draws of the seed): the field × sigma blurred by TensorFlow's
// Gaussian (6·int(sigma) + 1 taps, zero padding; as band-matrix products), then every
// output pixel (x, y) reads the image at (x + alpha·D, y + alpha·D), the same D for both
// axes as Keras draws it, through Keras's map_coordinates rule (bilinear or nearest, half
// to even; fill_mode constant/nearest/wrap/reflect, corners summed in Keras's order).
// Built from existing ops (the sampling a gather, embedding_lookup), so a batch holds at
// most 2^24 pixels (refused beyond, naming the limit and `where`). Gradients reach the
// sampled pixels.
#pragma once

#include <string>

#include "core/graph.h"

namespace strata::layers {

struct ElasticResampleOptions {
  std::string interpolation = "bilinear";  // or "nearest"
  std::string fill_mode = "reflect";       // constant, nearest, wrap, reflect
  double fill_value = 0.0;
  // An upper bound of sigma: the blur kernel's 6·int(sigma) + 1 taps, whose sum normalizes
  // it, reach beyond an image of 3·int(sigma) pixels or fewer.
  double largest_sigma = 0.0;
  std::string where;  // the layer or operation, for messages and the gather's limit
};

// Keras's checks of interpolation and fill_mode (ValueError; its TensorFlow backend's
// refusal of "mirror" as NotImplementedError), naming options.where.
void check_elastic_options(const ElasticResampleOptions& options);

// images: (batch, H, W, C), channels last, of known H, W and C; noise: (batch, H, W)
// standard normals; sigma and alpha: scalars or of shape (1,) / (1, 1).
Output elastic_resample(Output images, Output noise, Output sigma, Output alpha, const ElasticResampleOptions& options);

}  // namespace strata::layers
