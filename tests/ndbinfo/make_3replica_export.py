"""Write ``export-8.4.3-3replicas.tsv`` from the 8.0.35 fixture: NodeIds 21-23 (node group 0) and
31-33 (node group 1), NoOfReplicas=3, DataMemory=96G, and a rolling restart's restart_info rows
(node 31, then node 21). Run: ``python tests/ndbinfo/make_3replica_export.py``."""

from pathlib import Path

HERE = Path(__file__).resolve().parent
SPLIT = {"11": ["21", "22"], "12": ["23"], "13": ["31", "32"], "14": ["33"]}
"""Each 8.0 fixture node becomes these nodes (4 nodes in 2 groups -> 6 nodes in 2 groups)."""
GROUP = {"21": "0", "22": "0", "23": "0", "31": "1", "32": "1", "33": "1"}
CONFIG = {"NoOfReplicas": lambda n: "3", "Nodegroup": GROUP.get, "DataMemory": lambda n: str(96 * 2**30)}
RESTARTED = ["31", "21"]


def rows_of(table: str, cells: list[str]) -> list[list[str]]:
    """The new export's rows for one row of the 8.0 fixture's ``table``."""
    if table == "restart_info":
        return [[n, *cells[1:]] for n in RESTARTED] if cells[0] == "12" else []
    if cells[0] not in SPLIT:
        return [cells]
    out = []
    for n in SPLIT[cells[0]]:
        row = [n, *cells[1:]]
        if table == "config_values" and row[1] in CONFIG:
            row[2] = CONFIG[row[1]](n)
        out.append(row)
    return out


def main() -> None:
    lines = (HERE / "export-8.0.35.tsv").read_text().replace("8.0.35", "8.4.3").split("\n")
    out: list[str] = []
    table = ""
    for i, line in enumerate(lines):
        if line in ("ndbsim_table", "") or (i and lines[i - 1] == "ndbsim_table"):
            table = line if line not in ("ndbsim_table", "") else table
            out.append(line)
        elif "\t" in line and line.split("\t")[0].isdigit():
            out.extend("\t".join(r) for r in rows_of(table, line.split("\t")))
        else:
            out.append(line)
    (HERE / "export-8.4.3-3replicas.tsv").write_text("\n".join(out))


if __name__ == "__main__":
    main()
