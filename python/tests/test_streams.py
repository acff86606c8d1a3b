"""Streams, graphs and devices: warpfold runs where the caller's framework would, in its order,
without waiting for the GPU. Needs a CUDA device (skipped without).

Each ordering test makes a stream busy (a kernel that spins), then writes the data on it: a
reduce that ran anywhere else, or earlier, would read the poison (NaN) the data replaces."""

import pytest

np = pytest.importorskip("numpy")  # the references; without it these tests skip

from reference import quarter_values  # noqa: E402

import warpfold  # noqa: E402

N = 1 << 22
SPIN_CYCLES = 50_000_000  # ~25 ms at 2 GHz: long enough that the stream is still busy on return


def torch_data(torch):
    """(data, a poisoned buffer of its size, the data's exact sum), after one untimed sum and
    argmax of that size: loading a kernel on first use may wait for the device."""
    values = quarter_values(N, np.random.default_rng())
    src = torch.from_numpy(values.astype(np.float32)).cuda()
    poisoned = torch.full((N,), float("nan"), device="cuda")
    warpfold.sum(poisoned), warpfold.argmax(poisoned)
    torch.cuda.synchronize()
    return src, poisoned, float(values.sum())


def spin_torch(torch):
    if not hasattr(torch.cuda, "_sleep"):
        pytest.skip("this PyTorch has no torch.cuda._sleep")
    torch.cuda._sleep(SPIN_CYCLES)


def busy_stream_writing(torch, src, x):
    """A new stream that spins, then copies src into x: x holds poison until the spin ends."""
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        spin_torch(torch)
        x.copy_(src)
    return s


def test_torch_current_stream(torch_cuda):
    torch = torch_cuda
    src, x, expected = torch_data(torch)
    s = busy_stream_writing(torch, src, x)
    with torch.cuda.stream(s):
        r = warpfold.sum(x)
    assert not s.query(), "warpfold.sum waited for the GPU"
    s.synchronize()
    assert r.item() == expected


@pytest.mark.parametrize("as_handle", [False, True])
def test_torch_stream_argument(torch_cuda, as_handle):
    torch = torch_cuda
    src, x, expected = torch_data(torch)
    s = busy_stream_writing(torch, src, x)
    r = warpfold.sum(x, stream=s.cuda_stream if as_handle else s)  # the current stream is the default one
    assert not s.query()
    i = warpfold.argmax(x, stream=s)
    s.synchronize()
    assert r.item() == expected
    assert i.item() == int(np.argmax(src.cpu().numpy()))


def test_torch_cuda_graph(torch_cuda):
    torch = torch_cuda
    rng = np.random.default_rng()
    x = torch.empty(N + 3, device="cuda")[3:]
    x.copy_(torch.from_numpy(quarter_values(N, rng).astype(np.float32)))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up on a side stream, as PyTorch asks before a capture
        warpfold.sum(x)
        warpfold.max(x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        total = warpfold.sum(x)
        largest = warpfold.argmax(x)
    for _ in range(3):  # each replay on new data: the captured reduce reads x anew
        values = quarter_values(N, rng)
        x.copy_(torch.from_numpy(values.astype(np.float32)))
        graph.replay()
        torch.cuda.synchronize()
        assert total.item() == float(values.sum())
        assert largest.item() == int(np.argmax(values.astype(np.float32)))


def test_cupy_current_stream_and_argument(cupy_cuda):
    cupy = cupy_cuda
    spin = cupy.RawKernel(r'''
        extern "C" __global__ void spin(long long cycles) {
          long long start = clock64();
          while (clock64() - start < cycles) {}
        }''', "spin")
    values = quarter_values(N, np.random.default_rng())
    src = cupy.asarray(values.astype(np.float32))
    warpfold.sum(src)  # loads the kernel (which may wait for the device) before the streams are busy
    for use_argument in (False, True):
        x = cupy.full(N, cupy.nan, dtype=cupy.float32)
        cupy.cuda.Device().synchronize()
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            spin((1,), (1,), (np.int64(SPIN_CYCLES),))
            x[...] = src
            if not use_argument:
                r = warpfold.sum(x)
        if use_argument:
            r = warpfold.sum(x, stream=s)
        assert not s.done, "warpfold.sum waited for the GPU"
        s.synchronize()
        assert r.item() == float(values.sum())


def test_other_device(torch_cuda):
    torch = torch_cuda
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    values = quarter_values(1 << 20, np.random.default_rng())
    x = torch.from_numpy(values.astype(np.float32)).to("cuda:1")
    before = torch.cuda.current_device()
    r = warpfold.sum(x)
    assert r.device == x.device and r.item() == float(values.sum())
    assert torch.cuda.current_device() == before
    with pytest.raises(ValueError, match="device"):
        warpfold.sum(x, out=torch.empty((), device="cuda:0"))
    with pytest.raises(ValueError, match="stream= belongs to device"):
        warpfold.sum(x, stream=torch.cuda.Stream(device="cuda:0"))


def test_out_argument(torch_cuda):
    torch = torch_cuda
    values = quarter_values(1000, np.random.default_rng())
    x = torch.from_numpy(values).cuda()
    out = torch.full((1,), float("nan"), dtype=torch.float64, device="cuda")
    assert warpfold.sum(x, out=out) is out
    assert out.item() == values.sum()
    half = torch.empty((), dtype=torch.float16, device="cuda")
    warpfold.sum(x.half(), out=half)
    assert half.item() == float(np.float16(values.astype(np.float16).astype(np.float64).sum()))
