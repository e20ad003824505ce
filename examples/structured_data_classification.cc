// Structured data classification with preprocessing layers (Keras's "Structured data
// classification from scratch", the successor of TensorFlow's feature-column tutorial) on
// a real tabular data set: the Boston housing table that Debian's python3-sklearn ships as
// a CSV file. Each row is a Boston census tract; the task is whether its median home value
// (MEDV) is above the data set's median, 21.2 (thousands of dollars).
//
// Every kind of feature column becomes a Keras preprocessing layer inside the model:
//   numeric      CRIM ZN INDUS NOX RM DIS PTRATIO LSTAT  Normalization (adapted)
//   bucketized   AGE                                     Discretization(num_bins = 4, adapted), one-hot
//   categorical  CHAS (0/1)                              IntegerLookup (adapted), one-hot
//   vocabulary   RAD, read as text                       StringLookup (adapted), one-hot
//   hashed       TAX                                     Hashing(16), one-hot
//   crossed      RAD x AGE bucket                        HashedCrossing(32), one-hot
// (The table's B column, a function of a racial share, is left out, as scikit-learn now
// recommends.) The layers are adapted on the training rows only; the saved model holds
// their vocabularies and boundaries, so it takes the raw columns.
// tests/reference/structured_data_classification_keras.py builds the same model in
// Keras, and checks that Keras loads this program's saved model with its predictions.
#include <strata/strata.h>

#include <cstdio>
#include <iostream>

#include "tools/cli/flags.h"

using namespace strata;

namespace {

const std::vector<std::string> kNumeric = {"CRIM", "ZN", "INDUS", "NOX", "RM", "DIS", "PTRATIO", "LSTAT"};

// The columns one model input takes, for a set of rows.
struct Columns {
  Tensor numeric, age, chas, rad, tax, expensive;
  std::vector<Tensor> inputs() const { return {numeric, age, chas, rad, tax}; }
};

// Every fifth row (in file order) is a test row.
std::vector<std::int64_t> rows_of(std::int64_t n, bool test) {
  std::vector<std::int64_t> rows;
  for (std::int64_t i = 0; i < n; ++i) {
    if ((i % 5 == 4) == test) rows.push_back(i);
  }
  return rows;
}

Columns columns_of(const io::CsvTable& table, const std::vector<std::int64_t>& rows) {
  Columns c;
  c.numeric = table.select(kNumeric).gather_rows(rows);
  c.age = table.select({"AGE"}).gather_rows(rows);
  c.chas = ops::cast(table.select({"CHAS"}), DType::int64).gather_rows(rows);
  c.rad = table.select_strings({"RAD"}).gather_rows(rows);
  c.tax = table.select({"TAX"}).gather_rows(rows);
  c.expensive = ops::greater(table.select({"MEDV"}), 21.2f).gather_rows(rows);  // (n, 1) of 0 / 1
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 50;
  std::int64_t batch_size = 32;
  int seed = 1;
  int verbose = 0;
  std::string csv = "/usr/lib/python3/dist-packages/sklearn/datasets/data/boston_house_prices.csv";
  std::string save;
  cli::Flags flags("Classifies Boston census tracts by median home value with preprocessing layers.");
  flags.add("epochs", &epochs, "passes over the training rows")
      .add("batch_size", &batch_size, "rows per step")
      .add("seed", &seed, "random seed (weights, dropout, shuffling)")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("csv", &csv, "the Boston housing CSV file (Debian's python3-sklearn ships it)")
      .add("save", &save, "write the trained model (.keras) and, beside it, the test columns and predictions as .npy");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    // The file's first line holds its row and column counts; the header follows.
    const io::CsvTable table = io::read_csv(csv, {.skip_rows = 1, .string_columns = {"RAD"}});
    const Columns train = columns_of(table, rows_of(table.rows, false));
    const Columns test = columns_of(table, rows_of(table.rows, true));
    std::printf("%lld training and %lld test rows\n", static_cast<long long>(train.age.shape()[0]),
                static_cast<long long>(test.age.shape()[0]));

    auto numeric = Input({static_cast<std::int64_t>(kNumeric.size())}, {.name = "numeric"});
    auto age = Input({1}, {.name = "age"});
    auto chas = Input({1}, {.dtype = DType::int64, .name = "chas"});
    auto rad = Input({1}, {.dtype = DType::string, .name = "rad"});
    auto tax = Input({1}, {.name = "tax"});

    layers::Normalization normalize;
    normalize.adapt(train.numeric);
    layers::Discretization age_bucket({.num_bins = 4});
    age_bucket.adapt(train.age);
    layers::IntegerLookup chas_lookup({.output_mode = "one_hot"});
    chas_lookup.adapt(train.chas);
    layers::StringLookup rad_lookup({.output_mode = "one_hot"});
    rad_lookup.adapt(train.rad);

    const KerasTensor age_index = age_bucket(age);
    const KerasTensor features = layers::Concatenate()({
        normalize(numeric),
        layers::CategoryEncoding(4, {.output_mode = "one_hot"})(age_index),
        chas_lookup(chas),
        rad_lookup(rad),
        layers::Hashing(16, {.output_mode = "one_hot"})(tax),
        layers::HashedCrossing(32, {.output_mode = "one_hot"})({rad, age_index})[0],
    })[0];
    KerasTensor x = layers::Dense(32, {.activation = "relu"})(features);
    x = layers::Dropout(0.5)(x);
    const KerasTensor probability = layers::Dense(1, {.activation = "sigmoid"})(x);
    Model model({numeric, age, chas, rad, tax}, {probability});
    if (verbose) model.summary();

    // The lookups and hashes run on the CPU only (as in Keras, where they are CPU ops),
    // and a model runs on one device: on a GPU machine the default would be the GPU.
    model.compile({.optimizer = optimizers::Adam(),
                   .loss = losses::BinaryCrossentropy(),
                   .metrics = {"accuracy"},
                   .device = "cpu"});
    model.fit(train.inputs(), {train.expensive}, {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});
    const auto scores = model.evaluate(test.inputs(), {test.expensive}, {.verbose = 0});
    std::printf("test accuracy: %.4f  test loss: %.4f\n", scores.at("accuracy"), scores.at("loss"));

    if (!save.empty()) {
      model.save(save);
      const std::string stem = save.substr(0, save.find_last_of('.'));
      const std::vector<std::string> names = {"numeric", "age", "chas", "rad", "tax"};
      const std::vector<Tensor> inputs = test.inputs();
      for (std::size_t i = 0; i < names.size(); ++i) io::save_npy(stem + "." + names[i] + ".npy", inputs[i]);
      io::save_npy(stem + ".predictions.npy", model.predict(inputs, {.verbose = 0})[0]);
      std::printf("saved %s and its test columns and predictions (%s.*.npy)\n", save.c_str(), stem.c_str());
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
