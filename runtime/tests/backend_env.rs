//! `Device::new` and `WARPSPEED_BACKEND`, in one test because it changes the process
//! environment. Right on either machine: without a GPU `cuda` is `Err(NoDevice)` and the
//! default is the simulator; with `WARPSPEED_REQUIRE_GPU=1` the GPU must be found.

use warpspeed_runtime::{Backend, Device, Error};

#[test]
fn backend_selection_never_panics() {
    let require_gpu = std::env::var("WARPSPEED_REQUIRE_GPU").is_ok_and(|v| v == "1");

    std::env::set_var("WARPSPEED_BACKEND", "sim");
    assert_eq!(Device::new().unwrap().backend(), Backend::Simulator);

    std::env::set_var("WARPSPEED_BACKEND", "cuda");
    let forced = Device::new();
    match &forced {
        Ok(dev) => assert_eq!(dev.backend(), Backend::Cuda),
        Err(Error::NoDevice { reason }) => {
            assert!(!require_gpu, "WARPSPEED_REQUIRE_GPU=1 but: {reason}");
            let text = forced.as_ref().unwrap_err().to_string();
            assert!(text.contains("WARPSPEED_BACKEND=sim"), "{text}");
        }
        Err(other) => panic!("unexpected {other:?}"),
    }

    std::env::set_var("WARPSPEED_BACKEND", "quantum");
    let unknown = Device::new().unwrap_err();
    assert!(matches!(unknown, Error::UnknownBackend { .. }));
    // `{:?}`, what a `main` returning the error prints, is the message with its advice.
    let debug = format!("{unknown:?}");
    assert_eq!(debug, unknown.to_string());
    assert!(
        debug.contains("\"quantum\" is not a backend: use `cuda`, `sim`"),
        "{debug}"
    );

    std::env::remove_var("WARPSPEED_BACKEND");
    let auto = Device::new().expect("unset falls back to the simulator");
    let expected = if forced.is_ok() {
        Backend::Cuda
    } else {
        Backend::Simulator
    };
    assert_eq!(auto.backend(), expected);
    if require_gpu {
        assert_eq!(auto.backend(), Backend::Cuda);
    }
    eprintln!("auto-selected {auto:?}");
}
