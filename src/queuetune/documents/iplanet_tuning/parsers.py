"""Excerpt layouts of ``iplanet-tuning`` (iPlanet Web Server 6.0 Performance Tuning, Sizing,
and Scaling Guide) that the generic parsers do not read.

* ``iplanet-tuning-dump``: ``label value`` status dumps -- the perfdump output (IP-T1), the
  file-cache (nsfc) status page (IP-T3) and the F4800 system summary (IP-T8). One row per
  number (or per text value) with columns ``example, section, label, printed, component,
  value, unit``. Also reads the flattened layout in which several labels and their values
  were printed on one line, labels before a tab and values after it.
* ``iplanet-tuning-buckets``: the performance-bucket report (IP-T2), one row per statistic
  with the printed ``Average``, ``Total`` and ``Percent`` cells.
* ``iplanet-tuning-tab-table``: tab-separated tables that continue over a page break with a
  repeated caption and header (Table 0-1, IP-T4; Table 2, IP-T5); optionally pulls the default
  a description cell states into extra fields.
* ``iplanet-tuning-magnus-conf``: the sample magnus.conf (IP-T7): ``Directive value`` lines,
  a line on which several such pairs were run together, and ``Init`` lines wrapped over
  several printed lines.
* ``iplanet-tuning-defaults``: stated defaults scattered over the prose (IP-T6); one verbatim
  fragment per sentence, and a regular expression per row that pulls the default (and unit,
  minimum, maximum where the sentence gives them) out of its fragment.

All parsers return the printed text: a cell is a substring of the excerpt, except where a
parser's docstring says otherwise (numeric companions of printed cells, names given in the
options).
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ...provenance import FRAGMENT_SEPARATOR, excerpt_fragments, parser

# A number printed in a value, read whole: no sign, digit, point or comma glued to it ("-5",
# "1.2.3" and "1,024" give no number, so that a value is never read in part).
NUMBER = re.compile(r"(?<![\d.,+-])[0-9]+(?:\.[0-9]+)?(?![.,]?[0-9])")
_SINGLE = re.compile(r"^(?P<number>\d+(?:\.\d+)?)(?:\s+(?P<unit>\S.*))?$")
_UNDERLINE = re.compile(r"^[-_=]+$")


def _data_lines(fragment: str) -> list[str]:
    return [ln for ln in fragment.splitlines()
            if ln.strip() and ln.strip() != FRAGMENT_SEPARATOR]


# --------------------------------------------------------------------------------------------
# status dumps


def _components(label: str, printed: str, options: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(component, value, unit) triples for one printed value."""
    specs = options.get("components", {}).get(label)
    if specs is not None:
        numbers = NUMBER.findall(printed)
        if len(numbers) != len(specs):
            raise ValueError(f"{label!r}: {len(numbers)} numbers in {printed!r}, "
                             f"{len(specs)} components named")
        return [(name, number, unit) for (name, unit), number in zip(specs, numbers, strict=True)]
    single = _SINGLE.match(printed)
    if single:
        return [("value", single["number"], single["unit"] or "")]
    return [("value", "", "")]


def _split_labelled(line: str, labels: list[str]) -> list[tuple[str, str]]:
    """Split ``label value label value`` using the known labels (longest match first)."""
    ordered = sorted(labels, key=len, reverse=True)
    alternatives = "|".join(re.escape(label) for label in ordered)
    start = re.compile(rf"^(?P<label>{alternatives})(?::\s*|\s+|$)")
    later = re.compile(rf"(?:^|\s)(?P<label>{alternatives})(?=\s|:|$)")
    pairs = []
    rest = line.strip()
    while rest:
        match = start.match(rest)
        if not match:
            raise ValueError(f"no known label at {rest!r} (line {line!r})")
        tail = rest[match.end():]
        following = later.search(tail)
        value = tail[:following.start()] if following else tail
        pairs.append((match["label"], value.strip()))
        rest = tail[following.start():].strip() if following else ""
    return pairs


def _split_spread(line: str, labels: list[str]) -> list[tuple[str, str]]:
    """``label label label<TAB>value value unit value``: labels left of the tab, values right.

    A value token that holds no digit is the unit of the value before it.
    """
    left, right = line.split("\t", 1)
    names = [label for label, _ in _split_labelled(left.replace("\t", " "), labels)]
    values: list[str] = []
    for token in right.split():
        if values and not re.search(r"\d", token):
            values[-1] += f" {token}"
        else:
            values.append(token)
    if len(names) != len(values):
        raise ValueError(f"{len(names)} labels but {len(values)} values in {line!r}")
    return list(zip(names, values, strict=True))


@parser("iplanet-tuning-dump")
def parse_dump(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows ``example, section, label, printed, component, value, unit`` of a status dump.

    Options:

    * ``examples``: one name per fragment (the ``example`` column).
    * ``sections``: lines (stripped) that open a section; its name is the line less a
      trailing colon. ``top_level``: labels that close the current section.
    * ``labels``: the printed labels; lines are split at them (several pairs may share a
      line). Without ``labels``, a line splits at its first ``split`` match (a regex).
    * ``patterns``: regexes with groups ``label`` and ``value`` for whole lines of their own.
    * ``components``: ``{label: [[name, unit], ...]}`` names the numbers of a value, in
      printed order (``93/190 (48.95%)`` -> hits, lookups, percent). Otherwise a value that is
      one number, optionally followed by a unit word, gives one ``value`` row; anything else
      is a text value (``value`` empty, the text in ``printed``).

    ``printed`` is the value as printed; ``value`` is each number exactly as printed.
    Underline lines (``----``, ``____``) are skipped.
    """
    fragments = excerpt_fragments(text)
    examples = [str(e) for e in options.get("examples", [""] * len(fragments))]
    if len(examples) != len(fragments):
        raise ValueError(f"{len(fragments)} fragments for examples {examples}")
    sections = {str(s) for s in options.get("sections", [])}
    top_level = set(options.get("top_level", []))
    labels = list(options.get("labels", []))
    split = re.compile(options.get("split", r"\s+=\s+|:\s+"))
    patterns = [re.compile(p) for p in options.get("patterns", [])]
    records = []
    for example, fragment in zip(examples, fragments, strict=True):
        section = ""
        for raw in _data_lines(fragment):
            line = raw.strip()
            if _UNDERLINE.match(line):
                continue
            if line in sections:
                section = line.removesuffix(":").strip()
                continue
            whole = next((m for m in (p.match(line) for p in patterns) if m), None)
            if whole:
                pairs = [(whole["label"], whole["value"])]
            elif labels and "\t" in line:
                pairs = _split_spread(line, labels)
            elif labels:
                pairs = _split_labelled(line, labels)
            else:
                parts = split.split(line, maxsplit=1)
                if len(parts) != 2:
                    raise ValueError(f"cannot split {line!r}")
                pairs = [(parts[0].strip(), parts[1].strip())]
            for label, printed in pairs:
                if label in top_level:
                    section = ""
                for component, value, unit in _components(label, printed, options):
                    records.append({"example": example, "section": section, "label": label,
                                    "printed": printed, "component": component,
                                    "value": value, "unit": unit})
    return pd.DataFrame([[r[f] for f in fields] for r in records], columns=fields)


# --------------------------------------------------------------------------------------------
# performance buckets

_PERCENT = re.compile(r"^\(\s*(?P<number>\d+(?:\.\d+)?)\s*%\)$")
_DECIMAL_COMMA = re.compile(r"^(?P<whole>\d+),(?P<fraction>\d+)$")


@parser("iplanet-tuning-buckets")
def parse_buckets(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows ``scope, statistic, unit, average, total_printed, total, percent``.

    The first ``header_lines`` lines are the column header. A line listed in ``scopes``
    (``{printed heading: scope name}``) opens a bucket; rows before it belong to
    ``first_scope``. ``statistic`` is the printed label less its colon; ``unit`` comes from
    ``units`` (``{statistic: unit}``, taken from the document's description of the report).
    ``average`` is the printed cell; ``total_printed`` is the printed cell and ``total`` its
    number: the same text, except that with ``decimal_comma`` a cell printed as
    ``digits,digits`` is read with the comma as the decimal point. ``percent`` is the number
    inside the printed ``(x%)``.
    """
    lines = _data_lines(text)[int(options.get("header_lines", 1)):]
    scopes = dict(options.get("scopes", {}))
    units = dict(options.get("units", {}))
    scope = str(options.get("first_scope", ""))
    records = []
    for line in lines:
        if line in scopes:
            scope = scopes[line]
            continue
        cells = line.split("\t")
        cells += [""] * (4 - len(cells))
        label, average, total, percent = (c.strip() for c in cells[:4])
        if not label.endswith(":"):
            raise ValueError(f"unexpected bucket line {line!r}")
        statistic = label[:-1]
        number = total
        comma = _DECIMAL_COMMA.match(total)
        if comma and options.get("decimal_comma"):
            number = f"{comma['whole']}.{comma['fraction']}"
        pct = ""
        if percent:
            match = _PERCENT.match(percent)
            if not match:
                raise ValueError(f"unexpected percent cell {percent!r}")
            pct = match["number"]
        record = {"scope": scope, "statistic": statistic, "unit": units.get(statistic, ""),
                  "average": average, "total_printed": total, "total": number, "percent": pct}
        records.append([record[f] for f in fields])
    return pd.DataFrame(records, columns=fields)


# --------------------------------------------------------------------------------------------
# tab-separated tables over page breaks


@parser("iplanet-tuning-tab-table")
def parse_tab_table(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Tab-separated rows; lines matching a ``skip`` regex (captions, repeated headers) dropped.

    Trailing empty cells are dropped and the row padded with empty cells to ``cells`` printed
    columns. With ``derive`` (``{"from": cell index, "fields": [...], "patterns": [...]}``)
    the first pattern that matches the cell fills the named groups into the extra fields
    (empty when none matches), e.g. the default a description states.
    """
    skip = [re.compile(p) for p in options.get("skip", [])]
    width = int(options["cells"])
    derive = options.get("derive")
    records = []
    for line in _data_lines(text):
        if any(p.search(line) for p in skip):
            continue
        cells = [c.strip() for c in line.split("\t")]
        while cells and not cells[-1]:
            cells.pop()
        if len(cells) > width:
            raise ValueError(f"{len(cells)} cells, expected at most {width}: {line!r}")
        cells += [""] * (width - len(cells))
        if derive:
            extra = dict.fromkeys(derive["fields"], "")
            for pattern in derive["patterns"]:
                match = re.search(pattern, cells[int(derive["from"])])
                if match:
                    extra.update({k: v for k, v in match.groupdict().items() if v is not None})
                    break
            cells += [extra[f] for f in derive["fields"]]
        if len(cells) != len(fields):
            raise ValueError(f"{len(cells)} cells for {len(fields)} fields: {line!r}")
        records.append(cells)
    return pd.DataFrame(records, columns=fields)


# --------------------------------------------------------------------------------------------
# the sample magnus.conf

_DIRECTIVE = re.compile(r"^(?P<directive>#?[A-Za-z]+)(?:\s+(?P<value>.*))?$")
_INIT_FN = re.compile(r'\bfn="?(?P<fn>[\w-]+)"?')
_INTEGER = re.compile(r"[0-9]+")  # a whole value (fullmatch): "128", not "128\n" or "١٢٨"


@parser("iplanet-tuning-magnus-conf")
def parse_magnus_conf(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows ``order, directive, value, value_number, init_fn, commented``.

    A line listed in ``run_together`` holds several ``Directive value`` pairs on one printed
    line (split at whitespace, alternating). An ``Init`` line takes the following lines that
    do not start a directive of their own (``Init`` or a ``Directive value`` line before the
    first ``Init``) as its continuation: ``value`` keeps the printed line breaks. ``init_fn``
    is the ``fn=`` of an Init line. ``value_number`` repeats an integer value. A directive
    printed with a leading ``#`` keeps it in ``directive`` and has ``commented`` true.
    """
    run_together = {str(s) for s in options.get("run_together", [])}
    entries: list[list[str]] = []  # [directive, value]
    in_init = False
    for raw in _data_lines(text):
        if raw.startswith("```"):
            continue
        line = raw.rstrip()
        if line in run_together:
            tokens = line.split()
            if len(tokens) % 2:
                raise ValueError(f"odd number of tokens in {line!r}")
            entries += [[tokens[i], tokens[i + 1]] for i in range(0, len(tokens), 2)]
            continue
        if line.startswith("Init "):
            entries.append(["Init", line[len("Init "):]])
            in_init = True
            continue
        if in_init:
            entries[-1][1] += "\n" + line
            continue
        match = _DIRECTIVE.match(line)
        if not match:
            raise ValueError(f"not a directive line: {line!r}")
        entries.append([match["directive"], match["value"] or ""])
    records = []
    for order, (directive, value) in enumerate(entries, start=1):
        fn = _INIT_FN.search(value) if directive == "Init" else None
        record = {"order": str(order), "directive": directive, "value": value,
                  "value_number": value if _INTEGER.fullmatch(value) else "",
                  "init_fn": fn["fn"] if fn else "",
                  "commented": "true" if directive.startswith("#") else "false"}
        records.append([record[f] for f in fields])
    return pd.DataFrame(records, columns=fields)


# --------------------------------------------------------------------------------------------
# defaults stated in the prose


@parser("iplanet-tuning-defaults")
def parse_defaults(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """One row per entry of ``rows``; each entry reads one fragment of the excerpt.

    Entry keys: ``fragment`` (index, from 0), ``setting`` and ``config`` (the directive or
    parameter and where it is set, as the document names them elsewhere), ``named_as`` (how
    the fragment names the setting; must occur in it), ``pattern`` (a regex searched in the
    fragment with ``.`` matching newlines; groups ``default`` and optionally ``unit``,
    ``minimum``, ``maximum``) and ``basis``. ``default_number`` repeats ``default`` when it
    is a number. Every fragment must be read by at least one row.
    """
    fragments = excerpt_fragments(text)
    used: set[int] = set()
    records = []
    for row in options["rows"]:
        index = int(row["fragment"])
        fragment = fragments[index]
        used.add(index)
        if row["named_as"] not in fragment:
            raise ValueError(f"{row['named_as']!r} does not occur in fragment {index}")
        match = re.search(row["pattern"], fragment, flags=re.DOTALL)
        if not match:
            raise ValueError(f"pattern {row['pattern']!r} not found in fragment {index}")
        groups = {k: v or "" for k, v in match.groupdict().items()}
        default = groups["default"]
        record = {"setting": row["setting"], "config": row["config"],
                  "named_as": row["named_as"], "default": default,
                  "default_number": default if NUMBER.fullmatch(default) else "",
                  "unit": groups.get("unit", ""), "minimum": groups.get("minimum", ""),
                  "maximum": groups.get("maximum", ""), "basis": row["basis"],
                  "fragment": str(index)}
        records.append([record[f] for f in fields])
    unread = sorted(set(range(len(fragments))) - used)
    if unread:
        raise ValueError(f"fragments {unread} are not read by any row")
    return pd.DataFrame(records, columns=fields)
