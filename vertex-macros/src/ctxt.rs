//! Collects every error found while checking a program, so the user sees all of
//! them at once, each at its own span (the serde_derive habit).

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// Records an error pointing at `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, msg: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), msg));
    }

    /// Records an already-built error.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// Combines everything recorded into one error, if anything was.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}

/// Turns a result into compile errors.
pub fn to_compile_errors(e: syn::Error) -> TokenStream {
    e.to_compile_error()
}
