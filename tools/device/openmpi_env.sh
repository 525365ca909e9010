# Sourced ON the GPU machine from the repository root, after
# stage_openmpi.sh's staging: unpacks the Debian OpenMPI runtime under
# /tmp/openmpi-stage and points OpenMPI and PMIx there (OPAL_PREFIX,
# PMIX_INSTALL_PREFIX), so that neither loads the plugins of an OpenMPI that
# the machine may have of its own at the Debian paths; puts mpirun on PATH
# and the libraries on LD_LIBRARY_PATH. Commands run as root there.
mkdir -p /tmp/openmpi-stage
tar -C /tmp/openmpi-stage -xJf .device/openmpi.tar.xz
_tree=/tmp/openmpi-stage/openmpi/tree
export OPAL_PREFIX=$_tree/usr PMIX_INSTALL_PREFIX=$_tree/usr/lib/x86_64-linux-gnu/pmix2
export PMIX_MCA_mca_base_component_path=$_tree/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export PATH=$_tree/usr/bin:$PATH
export LD_LIBRARY_PATH=$_tree/usr/lib/x86_64-linux-gnu:/tmp/openmpi-stage/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset _tree
