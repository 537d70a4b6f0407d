"""A stand-in of UCI's ``cardiotocography.zip``: ``CTG.xls`` (Excel 97, written with xlwt)
with the sheets "Description", "Data" and "Raw Data" laid out as UCI's: the header in row 1,
an empty row 2, one row per record, and three summary rows with gaps at the end."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ldp_companion.data.datasets import CTG_COLUMNS

#: The columns of UCI's sheet "Raw Data", in order.
RAW_COLUMNS = ("FileName", "Date", "SegFile", "b", "e", "LBE", "LB", "AC", "FM", "UC", "ASTV",
               "MSTV", "ALTV", "MLTV", "DL", "DS", "DP", "DR", "Width", "Min", "Max", "Nmax",
               "Nzeros", "Mode", "Mean", "Median", "Variance", "Tendency", "A", "B", "C", "D",
               "E", "AD", "DE", "LD", "FS", "SUSP", "CLASS", "NSP")
_CLASSES = ("A", "B", "C", "D", "E", "AD", "DE", "LD", "FS", "SUSP")


def synthetic_table(rng: np.random.Generator, n: int = 2126) -> pd.DataFrame:
    """``n`` records of the 22 columns with plausible values (no real data needed)."""
    table = pd.DataFrame(rng.integers(0, 30, (n, len(CTG_COLUMNS))), columns=CTG_COLUMNS)
    table["LB"] = rng.integers(106, 161, n)
    table["MSTV"] = rng.integers(2, 70, n) / 10
    table["MLTV"] = rng.integers(0, 510, n) / 10
    table["Tendency"] = rng.integers(-1, 2, n)
    table["NSP"] = rng.choice([1, 2, 3], n, p=[0.78, 0.14, 0.08])
    return table


def raw_sheet(table: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """UCI's "Raw Data" columns: ``table``'s 22 columns, the others filled plausibly."""
    n = len(table)
    raw = pd.DataFrame(index=range(n), columns=RAW_COLUMNS, dtype=object)
    raw["FileName"] = [f"Variab{i % 100:02d}.txt" for i in range(n)]
    raw["Date"] = [f"{1 + i % 12}/{1 + i % 28}/{1995 + i % 4}" for i in range(n)]
    raw["SegFile"] = [f"CTG{i + 1:04d}.txt" for i in range(n)]
    start = rng.integers(0, 3000, n)
    raw["b"], raw["e"] = start, start + rng.integers(300, 1200, n)
    for c in CTG_COLUMNS:
        raw[c] = table[c].to_numpy()
    raw["LBE"], raw["DR"] = table["LB"].to_numpy(), 0
    label = rng.integers(0, len(_CLASSES), n)
    for k, c in enumerate(_CLASSES):
        raw[c] = (label == k).astype(int)
    raw["CLASS"] = label + 1
    return raw


def write_ctg_xls(path: Path, table: pd.DataFrame, rng: np.random.Generator,
                  header=RAW_COLUMNS) -> None:
    """Write the workbook: sheets "Description", "Data", "Raw Data" (see the module), with
    ``header`` as the names in row 1."""
    import xlwt

    book = xlwt.Workbook()
    book.add_sheet("Description").write(0, 0, "Cardiotocography (stand-in of UCI's CTG.xls)")
    data = book.add_sheet("Data")
    raw = raw_sheet(table, rng)
    sheet = book.add_sheet("Raw Data")
    for j, (column, name) in enumerate(zip(RAW_COLUMNS, header, strict=True)):
        sheet.write(0, j, name)
        data.write(0, j, name)
        for i, value in enumerate(raw[column].tolist(), start=2):  # row 2 stays empty
            sheet.write(i, j, value)
    last = len(raw) + 2
    summaries = {"LB": raw["LB"].min(), "AC": raw["AC"].max(), "Mean": raw["Mean"].mean()}
    for k, (column, value) in enumerate(summaries.items()):  # gaps in the other columns
        sheet.write(last + k, RAW_COLUMNS.index(column), float(value))
    for c in _CLASSES:
        sheet.write(last + 2, RAW_COLUMNS.index(c), int(raw[c].sum()))
    book.save(str(path))


def write_ctg_zip(path: Path, table: pd.DataFrame, rng: np.random.Generator,
                  member: str = "CTG.xls", header=RAW_COLUMNS) -> Path:
    """``path`` (``cardiotocography.zip``) holding the workbook as ``member``."""
    xls = path.with_name(path.stem + "-CTG.xls")
    write_ctg_xls(xls, table, rng, header)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(xls, member)
    xls.unlink()
    return path
