"""rich's Table, with its title folded at the output's width instead of the table's.

rich wraps a title to the width of the table under it, so in a pipe or a log (where kgroup never folds) and
under `--width 300` a title longer than a narrow table still split over two lines: `grep -A1 '^Final'` found
half a sentence. Here the title is a line of its own, as wide as the console allows.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table as _RichTable
from rich.text import Text


class Table(_RichTable):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        title = self.title
        if not title:
            yield from super().__rich_console__(console, options)
            return
        self.title = None  # rich would draw it again, folded to the table
        try:
            yield (
                Text(title, style=self.title_style or "table.title", justify=self.title_justify)
                if isinstance(title, str)
                else title
            )
            yield from super().__rich_console__(console, options)
        finally:
            self.title = title
