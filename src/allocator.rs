//! The global allocator: mimalloc, asked the way the C library's `malloc`
//! is asked.
//!
//! A lint allocates many small strings and vectors per file, freed on the
//! thread that made them: mimalloc's thread-local free lists serve that
//! pattern with fewer instructions than the system allocator. Its Rust
//! wrapper hands every request to `mi_malloc_aligned`, whose fast path is
//! longer than `mi_malloc`'s and whose slow path allocates more and aligns
//! by hand whenever the block size is not a power of two (a 1,280-byte
//! buffer of bytes, say). Every mimalloc block is aligned to at least a
//! machine word, 8 bytes here (its sizes are multiples of a word and its
//! blocks start at a multiple of 16 in a page), so a request for that
//! alignment or less goes to the plain functions; only larger alignments
//! take the aligned ones.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc, mi_zalloc_aligned,
};

/// The alignment every block mimalloc hands out has: a machine word (its
/// smallest block is one, and its sizes are multiples of one).
const BLOCK_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc, through its plain entry points where they suffice.
pub struct Allocator;

// SAFETY: each method forwards to the mimalloc function that keeps the
// contract `GlobalAlloc` states: the plain ones only for alignments every
// mimalloc block has (see the module's comment; `tests` checks it).
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi_malloc(layout.size()).cast()
        } else {
            mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi_zalloc(layout.size()).cast()
        } else {
            mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi_free(ptr.cast::<c_void>());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size a lint asks for (and past mimalloc's small and medium
    /// classes), at every alignment up to a page: each block is aligned
    /// as asked, holds what was written to it, and keeps it when grown.
    #[test]
    fn blocks_are_aligned_as_asked_and_keep_their_bytes() {
        let a = Allocator;
        let mut sizes: Vec<usize> = (1..=2048).collect();
        sizes.extend([4095, 4096, 10_000, 70_000, 600_000, 5_000_000]);
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for &size in &sizes {
                let Ok(layout) = Layout::from_size_align(size, align) else { panic!("{size}/{align}") };
                // SAFETY: a non-zero size; each block is freed once, with its layout.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null() && (p as usize).is_multiple_of(align), "alloc {size} aligned {align}: {p:?}");
                    p.write_bytes(0xa5, size);
                    let grown = size * 2 + 1;
                    let q = a.realloc(p, layout, grown);
                    assert!(
                        !q.is_null() && (q as usize).is_multiple_of(align),
                        "realloc {size}→{grown} aligned {align}"
                    );
                    assert!((0..size).all(|i| *q.add(i) == 0xa5), "realloc {size}→{grown} kept the bytes");
                    a.dealloc(q, Layout::from_size_align_unchecked(grown, align));
                    let z = a.alloc_zeroed(layout);
                    assert!(!z.is_null() && (z as usize).is_multiple_of(align), "zeroed {size} aligned {align}");
                    assert!((0..size).all(|i| *z.add(i) == 0), "zeroed {size} is zero");
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
