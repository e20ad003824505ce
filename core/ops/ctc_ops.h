// Connectionist temporal classification (keras.ops.ctc_loss, keras.ops.ctc_decode, the CTC
// loss): the loss of a labelling given per-step class scores, summed over every alignment
// (Graves et al. 2006, the forward-backward recursion in log space), and the greedy decoding
// of scores to labels, greedy or by beam search. Logits are (batch, steps, classes), not normalized: the ops take their
// log-softmax per step, as TensorFlow's do. Integer inputs (labels, lengths) may be int32,
// int64 or float32 holding whole numbers. The CPU runs them (core/cpu/kernels/ctc.cc); no
// CUDA kernel is written, so a Program placed on a GPU refuses them by name.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::ops {

// -log p(labels[b, :label_length[b]] | logits[b, :logit_length[b]]) per sample, (batch,)
// float32: labels (batch, max_label), logits (batch, steps, classes), label_length and
// logit_length (batch,); `blank` the blank class (negative counts from the end). As Keras's
// TensorFlow backend computes it (tf.nn.ctc_loss on dense labels): the states cover the whole
// padded row, and those a path may not begin or end in weigh log(1e-307), about -707, not
// log 0, so a labelling no alignment of the steps can give has a finite loss (about 707 plus
// the best path that stops short) and a gradient, and a loss past about 707 reads about 707.
// Labels past label_length are cast as Keras casts them, not checked. Its gradient reaches
// the logits only.
Output ctc_loss(Output labels, Output logits, Output label_length, Output logit_length, std::int64_t blank);

// The gradient of each sample's ctc_loss with respect to its logits, (batch, steps, classes):
// softmax(logits) minus the alignments' occupancy of each class at each step, zero past
// logit_length. ctc_loss's gradient scales it by the loss's incoming gradient.
Output ctc_loss_logits_gradient(Output labels, Output logits, Output label_length, Output logit_length,
                                std::int64_t blank);

// TensorFlow's greedy decoder: per sample, the best class of each of its first
// sequence_length steps (ties to the lowest class, the blank among them), repeats merged when
// `merge_repeated`, blanks dropped. Returns the labels (batch, steps) int32, padded with -1,
// and the score (batch, 1) float32: minus the sum of the chosen logits.
struct CtcDecoded {
  Output labels;
  Output scores;
};
CtcDecoded ctc_greedy_decode(Output logits, Output sequence_length, bool merge_repeated, std::int64_t blank);

// TensorFlow's beam search decoder (tf.nn.ctc_beam_search_decoder, which Keras's ctc_decode
// calls with strategy="beam_search"): per sample, over its first sequence_length steps of
// the log-softmax of the logits, the prefix beam search of Graves's thesis (each prefix's
// probability of ending in a blank and in its last label, beam_width prefixes kept, in
// TensorFlow's order of growing them), labels never merged. Returns the top_paths best
// labellings (top_paths, batch, steps) int32, padded with -1, best first, and their log
// probabilities (batch, top_paths) float32. top_paths at most beam_width; a sample with fewer
// prefixes than top_paths (a short sequence) is an error when the op runs, as TensorFlow's.
CtcDecoded ctc_beam_search_decode(Output logits, Output sequence_length, std::int64_t beam_width,
                                  std::int64_t top_paths, std::int64_t blank);

}  // namespace strata::ops
