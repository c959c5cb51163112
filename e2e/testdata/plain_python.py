"""Runs a notebook's code cells as one plain Python program in the
notebook's folder: lines of IPython syntax dropped (%time's statement
kept), so what it prints is what the code means without IPython. With more
arguments, they replace the last cell (which fails in the tests' notebook).
Usage: python3 plain_python.py NOTEBOOK.ipynb [CODE...]"""
import json
import os
import sys

path = sys.argv[1]
cells = [''.join(c['source']) for c in json.load(open(path))['cells'] if c['cell_type'] == 'code']
if len(sys.argv) > 2:
    cells = cells[:-1] + sys.argv[2:]
lines = ["import matplotlib", "matplotlib.use('Agg')"]
for cell in cells:
    for line in cell.split('\n'):
        s = line.strip()
        if s.startswith('%time '):
            line = line.replace('%time ', '', 1)
        elif s.startswith('%') or s.endswith('?'):
            continue
        lines.append(line)
os.chdir(os.path.dirname(os.path.abspath(path)))
try:
    exec(compile('\n'.join(lines), path, 'exec'), {'__name__': '__main__'})
finally:
    if os.path.exists('by_region.csv'):
        os.remove('by_region.csv')
