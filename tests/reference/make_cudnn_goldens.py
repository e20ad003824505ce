"""Keras 2 GPU files for the C++ tests (tests/io/cudnn_files_test.cc).

tf.keras's CuDNNLSTM and CuDNNGRU layers keep their weights in cuDNN's layout (one
input and one recurrent bias per gate; kernels per gate in cuDNN's order of elements).
tf.keras builds and saves them without a GPU; to run such a model on a CPU it loads the
file's weights into LSTM / GRU(reset_after=True) layers, converting them
(keras legacy hdf5 format: _convert_rnn_weights). Writes, under tests/data/cudnn/:
  cudnn_lstm_gru.h5     Sequential: CuDNNLSTM(4, return_sequences) -> CuDNNGRU(3)
                        -> Dense(2), random weights, saved by tf.keras
  cudnn_bidirectional.h5  Bidirectional(CuDNNLSTM(3)) on (6, 2) inputs
  <name>.input0.npy / <name>.output0.npy: the input, and what tf.keras's CPU twin
                        (weights converted by tf.keras itself) predicts for it.

Run:
  python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install tensorflow-cpu tf_keras h5py
  TF_CPP_MIN_LOG_LEVEL=3 /tmp/kvenv/bin/python tests/reference/make_cudnn_goldens.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tf_keras as K  # noqa: E402
from tf_keras.src.layers.rnn.cudnn_gru import CuDNNGRU  # noqa: E402
from tf_keras.src.layers.rnn.cudnn_lstm import CuDNNLSTM  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "cudnn")


def randomize(model, rng):
    model.set_weights([rng.normal(0, 0.5, w.shape).astype("float32") for w in model.get_weights()])


def save_case(name, gpu_model, cpu_model, x):
    path = os.path.join(OUT, name + ".h5")
    gpu_model.save(path)
    cpu_model.load_weights(path)  # tf.keras converts cuDNN weights on loading
    np.save(os.path.join(OUT, name + ".input0.npy"), x)
    np.save(os.path.join(OUT, name + ".output0.npy"), cpu_model.predict(x, verbose=0))
    print("wrote", path)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(11)
    K.utils.set_random_seed(11)
    x = rng.normal(0, 1, (3, 5, 3)).astype("float32")
    gpu = K.Sequential([K.layers.InputLayer((5, 3)), CuDNNLSTM(4, return_sequences=True, name="lstm"),
                        CuDNNGRU(3, name="gru"), K.layers.Dense(2, name="head")])
    randomize(gpu, rng)
    cpu = K.Sequential([K.layers.InputLayer((5, 3)), K.layers.LSTM(4, return_sequences=True, name="lstm"),
                        K.layers.GRU(3, reset_after=True, name="gru"), K.layers.Dense(2, name="head")])
    save_case("cudnn_lstm_gru", gpu, cpu, x)

    x = rng.normal(0, 1, (2, 6, 2)).astype("float32")
    gpu = K.Sequential([K.layers.InputLayer((6, 2)), K.layers.Bidirectional(CuDNNLSTM(3), name="bi")])
    randomize(gpu, rng)
    cpu = K.Sequential([K.layers.InputLayer((6, 2)), K.layers.Bidirectional(K.layers.LSTM(3), name="bi")])
    save_case("cudnn_bidirectional", gpu, cpu, x)


if __name__ == "__main__":
    main()
