//! cudarc's errors as the runtime's: the one place that names a driver error
//! code (`cuda` and `graphs` both map through it).

use cudarc::driver::result::DriverError;

use crate::error::Error;

/// Turns a cudarc error from `call` into the runtime's error.
pub fn cuda_err(call: &str) -> impl FnOnce(DriverError) -> Error + '_ {
    move |e| Error::Cuda {
        call: call.to_string(),
        msg: describe(&e),
    }
}

/// `NAME: description` of a driver error code.
pub fn describe(e: &DriverError) -> String {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    }
}
