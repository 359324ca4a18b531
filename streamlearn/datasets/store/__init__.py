"""Where the data files live and what is known about them: the data directory, checksums,
downloads and the parsed-array cache. The catalogue of files is
:mod:`streamlearn.datasets.catalogue`; this package is everything that touches the disk.

===========================  ==========================================================
module                       concern
===========================  ==========================================================
:mod:`.locations`            the data directory and the per-user cache directory
:mod:`.checksums`            SHA-256 of a file, memoised by the file's identity
:mod:`.verification`         a file's and a dataset's state (ok, mismatch, missing, ...)
                             and the messages that say how to repair it
:mod:`.downloads`            downloading an official URL into the data directory
                             (``streamlearn data fetch``) and the files a load needs
:mod:`.parsed_cache`         a dataset's parsed arrays in the user cache
===========================  ==========================================================

Loading only reads the data directory; only downloads write there. The caches (the hash
memo and the parsed arrays) live in the user cache directory and are best-effort: when
they cannot be written, loading goes on without them.
"""
