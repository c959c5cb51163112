# quarry's report builder, the entry point: reads the report's data (a JSON
# file the host wrote from the session's record) and the files beside it,
# writes the formats asked for into the output folder and prints one line
# of JSON saying what it wrote, for the host.
import json
import time

BUILT_MARK = 'quarry-report-built: '


def build_report(spec_path, data, out):
    t0 = time.monotonic()
    with open(spec_path, encoding='utf-8') as f:
        spec = json.load(f)
    counts = Counts()
    done = {'files': [], 'sheets': [], 'seconds': {}}
    for fmt in spec.get('formats') or ['xlsx', 'pdf']:
        t = time.monotonic()
        path = os.path.join(out, spec.get('names', {}).get(fmt) or 'report.' + fmt)
        if fmt == 'xlsx':
            done['sheets'] = [m.get('sheet') for m in write_workbook(spec, data, path, counts)]
        elif fmt == 'pdf':
            write_pdf(spec, data, path, Counts())
        else:
            raise ValueError('report format %r: the builder writes xlsx and pdf' % fmt)
        done['files'].append(os.path.basename(path))
        done['seconds'][fmt] = round(time.monotonic() - t, 3)
    done['cleaning'] = counts.words()
    done['seconds']['all'] = round(time.monotonic() - t0, 3)
    print(BUILT_MARK + json.dumps(done))
