package sandbox

// SetProfileSampling lowers the size above which the kernel profiles a file
// from its first rows, and the number of rows; it returns a restore func.
func SetProfileSampling(fullBytes, sampleRows int64) func() {
	oldB, oldR := profileLimits.fullBytes.Swap(fullBytes), profileLimits.sampleRows.Swap(sampleRows)
	return func() {
		profileLimits.fullBytes.Store(oldB)
		profileLimits.sampleRows.Store(oldR)
	}
}
