//! Memory a Python object owns (a numpy array's data, a `bytes` object's contents), held
//! by an Alkaid buffer without a copy: the buffer keeps a reference to the object, and
//! the object keeps the memory where it is.

use pyo3::prelude::*;

/// `len` bytes at `address`, alive while `owner` is.
pub(crate) struct PythonMemory {
    /// Held, never read: the reference keeps the memory alive.
    #[allow(dead_code)]
    owner: Py<PyAny>,
    address: usize,
    len: usize,
}

impl PythonMemory {
    /// The `len` bytes at `address`, kept alive by a reference to `owner`.
    ///
    /// # Safety
    /// The bytes must be readable, and neither move nor be freed, for as long as `owner`
    /// lives.
    pub(crate) unsafe fn new(owner: Py<PyAny>, address: usize, len: usize) -> Self {
        Self {
            owner,
            address,
            len,
        }
    }
}

impl AsRef<[u8]> for PythonMemory {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `new`'s caller promised the bytes stay readable and in place while
        // `owner` lives, and `self` holds a reference to it.
        unsafe { std::slice::from_raw_parts(self.address as *const u8, self.len) }
    }
}
