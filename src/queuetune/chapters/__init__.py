"""Helpers of the chapters that are not about one source document, and the few shared by all.

* :mod:`.text` - numbers and intervals written out as the chapters print them;
* :mod:`.show` - rich output (Markdown, typeset math) for a live notebook;
* :mod:`.fitting` - the fitting chapter: fitted parameters and stored fits as text;
* :mod:`.thread_pool_model` - the thread-pool-model chapter: sweeps, benchmark and
  validation summaries;
* :mod:`.practical` - the practical chapter: the sizing procedure and its worked example.

The helpers of a chapter about one source document live in that document's home,
``queuetune.documents.<document>.chapter``; those of the what-if chapter in
:mod:`queuetune.explorer`.
"""
