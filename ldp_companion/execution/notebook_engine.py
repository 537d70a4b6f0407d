"""papermill's engine for the chapters: the executed notebook saved at most every few seconds.

papermill writes the whole executed notebook to disk when each cell starts and again when it
ends, so that a stopped run leaves the notebook as far as it got. A chapter has about a
hundred cells and a notebook of a few megabytes with its figures: those two hundred writes
took about 4 of chapter 3's 25 to 30 s at smoke. This engine (papermill's own nbclient
engine) writes at a cell's start or end only when :data:`SAVE_EVERY` seconds have passed
since the last write, and always when the run starts and ends, normally, on an error or
stopped by SIGTERM (:func:`ldp_companion.execution.processes.stopping_on_sigterm` raises in
the runner, and papermill ends the notebook in a ``finally``): a stopped run's notebook
still shows the cell it stopped in (``benchmarks/paper_profile.py --stopped-after`` reads
it). Only a SIGKILL can leave the notebook up to :data:`SAVE_EVERY` seconds behind the run.
"""
from __future__ import annotations

from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines

__all__ = ["ENGINE", "SAVE_EVERY"]

#: The engine's name for ``papermill.execute_notebook(..., engine_name=ENGINE)``.
ENGINE = "ldp_companion"

#: Seconds between two writes of the notebook while its cells run.
SAVE_EVERY = 5.0


class _SparseSaves(NotebookExecutionManager):
    """papermill's execution manager, writing the notebook only every :data:`SAVE_EVERY`
    seconds while cells start and end, and whenever the run ends."""

    _written = False  # the notebook is on disk from the run's start
    _ending = False

    def save(self, **kwargs):
        due = (self.now() - self.last_save_time).total_seconds() >= SAVE_EVERY
        if due or self._ending or not self._written:
            super().save(**kwargs)
            self._written = True

    def notebook_complete(self, **kwargs):
        self._ending = True  # the last state is written, whatever the time
        super().notebook_complete(**kwargs)


class _Engine(NBClientEngine):
    """nbclient's engine with :class:`_SparseSaves` as its manager."""

    @classmethod
    def execute_notebook(cls, nb, kernel_name, output_path=None, progress_bar=True,
                         log_output=False, autosave_cell_every=30, **kwargs):
        manager = _SparseSaves(nb, output_path=output_path, progress_bar=progress_bar,
                               log_output=log_output, autosave_cell_every=autosave_cell_every)
        manager.notebook_start()
        try:
            cls.execute_managed_notebook(manager, kernel_name, log_output=log_output, **kwargs)
        finally:
            manager.cleanup_pbar()
            manager.notebook_complete()
        return manager.nb


papermill_engines.register(ENGINE, _Engine)
