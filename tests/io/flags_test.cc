// tools/cli/flags.h is header-only; it is tested here with the io suite.
#include "tools/cli/flags.h"

#include <gtest/gtest.h>

#include <sstream>

namespace strata::flags_test {
namespace {

using cli::Flags;

struct Config {
  int epochs = 10;
  std::int64_t steps = 100;
  int batch_size = 32;
  double learning_rate = 1e-3;
  float dropout = 0.5f;
  std::string data_dir = "/usr/share/datasets";
  bool verbose = true;
  bool shuffle = false;
};

Flags make_flags(Config& c) {
  Flags flags("test program");
  flags.add("epochs", &c.epochs, "passes")
      .add("steps", &c.steps)
      .add("batch_size", &c.batch_size)
      .add("learning_rate", &c.learning_rate)
      .add("dropout", &c.dropout)
      .add("data_dir", &c.data_dir)
      .add("verbose", &c.verbose)
      .add("shuffle", &c.shuffle);
  return flags;
}

bool parse(Flags& flags, std::vector<const char*> args, std::ostream& out = std::cout) {
  args.insert(args.begin(), "prog");
  return flags.parse(static_cast<int>(args.size()), args.data(), out);
}

TEST(Flags, ParsesBothSpellingsOfValues) {
  Config c;
  Flags flags = make_flags(c);
  ASSERT_TRUE(parse(
      flags, {"--epochs=3", "--batch_size", "64", "--learning-rate", "0.01", "--dropout=0.25",
              "--data_dir=/tmp/x", "--steps", "-7", "--shuffle", "--noverbose", "extra.txt"}));
  EXPECT_EQ(c.epochs, 3);
  EXPECT_EQ(c.batch_size, 64);
  EXPECT_DOUBLE_EQ(c.learning_rate, 0.01);
  EXPECT_FLOAT_EQ(c.dropout, 0.25f);
  EXPECT_EQ(c.data_dir, "/tmp/x");
  EXPECT_EQ(c.steps, -7);
  EXPECT_TRUE(c.shuffle);
  EXPECT_FALSE(c.verbose);
  EXPECT_EQ(flags.positional(), (std::vector<std::string>{"extra.txt"}));
  EXPECT_TRUE(flags.was_set("epochs"));
  EXPECT_FALSE(Flags().was_set("epochs"));
}

// The lesson behind this class: the summary shows what was parsed, not the defaults.
TEST(Flags, SummaryShowsParsedValuesNotDefaults) {
  Config c;
  Flags flags = make_flags(c);
  EXPECT_EQ(flags.summary(),
            "flags: epochs=10 steps=100 batch_size=32 learning_rate=0.001 dropout=0.5 "
            "data_dir=/usr/share/datasets verbose=true shuffle=false");
  ASSERT_TRUE(parse(flags, {"--epochs", "2", "--batch-size=128", "--learning_rate=1e-4",
                            "--verbose=false", "--data_dir", "my data"}));
  EXPECT_EQ(flags.summary(),
            "flags: epochs=2 steps=100 batch_size=128 learning_rate=1e-04 dropout=0.5 "
            "data_dir=\"my data\" verbose=false shuffle=false");
}

TEST(Flags, BoolSpellings) {
  for (auto [arg, expected] : std::vector<std::pair<const char*, bool>>{{"--shuffle", true},
                                                                        {"--shuffle=true", true},
                                                                        {"--shuffle=1", true},
                                                                        {"--shuffle=yes", true},
                                                                        {"--shuffle=false", false},
                                                                        {"--no-shuffle", false},
                                                                        {"--no_shuffle", false},
                                                                        {"--noshuffle", false}}) {
    Config c;
    c.shuffle = !expected;
    Flags flags = make_flags(c);
    ASSERT_TRUE(parse(flags, {arg}));
    EXPECT_EQ(c.shuffle, expected) << arg;
  }
}

TEST(Flags, BadInputIsValueError) {
  Config c;
  Flags flags = make_flags(c);
  EXPECT_THROW(parse(flags, {"--epoch=3"}), ValueError);
  EXPECT_THROW(parse(flags, {"--epochs=three"}), ValueError);
  EXPECT_THROW(parse(flags, {"--epochs=3.5"}), ValueError);
  EXPECT_THROW(parse(flags, {"--epochs"}), ValueError);
  EXPECT_THROW(parse(flags, {"--epochs=99999999999"}), ValueError);
  EXPECT_THROW(parse(flags, {"--learning_rate=fast"}), ValueError);
  EXPECT_THROW(parse(flags, {"--verbose=maybe"}), ValueError);
  try {
    parse(flags, {"--epoch=3"});
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean --epochs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(flags.add("epochs", &c.epochs), ValueError);  // registered twice
}

TEST(Flags, HelpPrintsUsageWithDefaults) {
  Config c;
  Flags flags = make_flags(c);
  std::ostringstream out;
  EXPECT_FALSE(parse(flags, {"--help"}, out));
  EXPECT_NE(out.str().find("test program"), std::string::npos);
  EXPECT_NE(out.str().find("--epochs (int, default 10)  passes"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("--learning_rate (float, default 0.001)"), std::string::npos);
}

TEST(Flags, DoubleDashEndsFlags) {
  Config c;
  Flags flags = make_flags(c);
  ASSERT_TRUE(parse(flags, {"--epochs=4", "--", "--epochs=5", "-x"}));
  EXPECT_EQ(c.epochs, 4);
  EXPECT_EQ(flags.positional(), (std::vector<std::string>{"--epochs=5", "-x"}));
}

}  // namespace
}  // namespace strata::flags_test
