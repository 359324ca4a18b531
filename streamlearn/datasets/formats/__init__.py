"""Fast, strict parsers for the official file formats of the papers' datasets, one module
per format family.

Every parser either returns arrays that faithfully reflect the file or raises
:class:`streamlearn.errors.DataError` naming the file and, where known, the line. Nothing
here silently drops, pads or guesses values: a truncated archive, a ragged row, a
non-numeric token or an empty file is an error. Missing values (NaN/inf) are *passed
through* to the caller, which applies the stream's ``nan_policy``.

========================  ==============================================================
module                    formats
========================  ==============================================================
:mod:`.raw`               a file's bytes (``.gz``/``.bz2`` decompressed) and its text
:mod:`.tables`            delimited text (UCI csv / whitespace tables, ESL ``zip.*``);
                          CSV with a header (KuaiRec, temperature traces; pandas); cells
                          to floats and class codes
:mod:`.libsvm`            LIBSVM / svmlight sparse text
:mod:`.arff`              ARFF (dense, as written by Weka/MOA)
:mod:`.binary`            IDX (MNIST), the smallNORB binary matrix, RIFF/WAVE PCM
:mod:`.cells`             a user file's cells checked: floats, finiteness, target column
                          and labels, separators, header names (file, line, column)
========================  ==============================================================

The real-data streams (:mod:`streamlearn.datasets.real`) and the user file streams
(:mod:`streamlearn.datasets.files`) import what they read from these modules.
"""
